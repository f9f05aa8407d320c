# The objects the pretix peer benchmark drives, made through the Django ORM in
# `python -m pretix shell` (bench/pretix/pretix.sh pipes this file in): one organizer, two events
# with one admission item each (a `reserve` event whose quota never runs out under a
# reserve-and-release loop, and a `burst` event whose quota is the burst's places), a team with
# every permission and one API token. Idempotent: a second run finds the objects, sets the quota
# sizes again and removes every cart position of both events, so each run starts from an empty
# cart. Prints one line per value, `export NAME=value`, for bench/pretix/pretix.sh to keep.
import os
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.utils.timezone import now
from django_scopes import scopes_disabled

from pretix.base.models import (
    CartPosition, Event, Item, Organizer, Quota, Team, TeamAPIToken,
)

RESERVE_PLACES = int(os.environ["PRETIX_SEED_RESERVE_PLACES"])
BURST_PLACES = int(os.environ["PRETIX_SEED_BURST_PLACES"])
PRICE = Decimal("25.00")


def event_with_quota(organizer, slug, name, places):
    event = Event.objects.filter(organizer=organizer, slug=slug).first()
    if event is None:
        event = Event.objects.create(
            organizer=organizer,
            slug=slug,
            name=name,
            currency="EUR",
            date_from=now() + timedelta(days=30),
            plugins=settings.PRETIX_PLUGINS_DEFAULT,
            live=True,
        )
        event.set_defaults()
    item = Item.objects.filter(event=event, name__contains="Admission").first()
    if item is None:
        item = Item.objects.create(event=event, name="Admission", default_price=PRICE, admission=True)
    quota = Quota.objects.filter(event=event, name="Places").first()
    if quota is None:
        quota = Quota.objects.create(event=event, name="Places", size=places)
        quota.items.add(item)
    elif quota.size != places:
        quota.size = places
        quota.save(update_fields=["size"])
    CartPosition.objects.filter(event=event).delete()
    return event, item, quota


with scopes_disabled():
    organizer, _ = Organizer.objects.get_or_create(slug="marquee-bench", defaults={"name": "Marquee bench"})
    reserve_event, reserve_item, _ = event_with_quota(organizer, "reserve", "Reserve loop", RESERVE_PLACES)
    burst_event, burst_item, _ = event_with_quota(organizer, "burst", "Burst", BURST_PLACES)
    team, _ = Team.objects.get_or_create(
        organizer=organizer,
        name="Bench API",
        defaults={
            "all_events": True,
            "all_event_permissions": True,
            "all_organizer_permissions": True,
        },
    )
    token = team.tokens.filter(active=True).first() or TeamAPIToken.objects.create(team=team, name="bench")
    for name, value in [
        ("PRETIX_ORGANIZER", organizer.slug),
        ("PRETIX_TOKEN", token.token),
        ("PRETIX_PRICE", str(PRICE)),
        ("PRETIX_RESERVE_EVENT", reserve_event.slug),
        ("PRETIX_RESERVE_ITEM", reserve_item.pk),
        ("PRETIX_RESERVE_PLACES", RESERVE_PLACES),
        ("PRETIX_BURST_EVENT", burst_event.slug),
        ("PRETIX_BURST_ITEM", burst_item.pk),
        ("PRETIX_BURST_PLACES", BURST_PLACES),
    ]:
        print(f"export {name}={value}")
