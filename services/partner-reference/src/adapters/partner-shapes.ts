import type {
  FaceValuePrices,
  Manifest as ManifestShape,
  ManifestArea,
  PartnerEvent,
  PriceType as PriceTypeShape,
  Ticket as TicketShape,
} from '@marquee/partner-api';
import type {
  DateTimeProperties,
  EventDetails,
  EventRecord,
  EventVisibility,
  PricePeriod,
  PriceType,
  TextInfo,
} from '../domain/event.js';
import type { Area, Manifest, Ticket } from '../domain/model.js';

/**
 * The 3P API's snake_case shapes of events, manifests and tickets, to and from the domain's
 * records. Two edges speak them: the HTTP port (requests and answers) and the stores (documents
 * keep the field names they were first written with), so both use these (ports may use adapters'
 * mappers). Amounts are minor units as strings of digits there, numbers here.
 */

/** `{ [key]: value }` when the value is given, else nothing: optional fields stay absent. */
export const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** Minor units as the API writes them; a missing or non-numeric amount reads as 0. */
const minor = (amount: string | undefined): number => {
  const value = Number(amount);
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
};

const textFrom = (t: { lang: string; name: string; description?: string }): TextInfo => ({
  lang: t.lang,
  name: t.name,
  ...opt('description', t.description),
});
const textTo = (t: TextInfo) => ({
  lang: t.lang,
  name: t.name,
  ...opt('description', t.description),
});

const propertiesFrom = (p: { date_hidden: boolean; time_hidden: boolean }): DateTimeProperties => ({
  dateHidden: p.date_hidden,
  timeHidden: p.time_hidden,
});
const propertiesTo = (p: DateTimeProperties) => ({
  date_hidden: p.dateHidden,
  time_hidden: p.timeHidden,
});

const visibilityFrom = (v: PartnerEvent['visibility']): EventVisibility => ({
  defaultVisibility: v.default_visibility,
  ...opt(
    'override',
    v.visibility_override === undefined
      ? undefined
      : { visibility: v.visibility_override.visibility, startsOn: v.visibility_override.starts_on },
  ),
});
const visibilityTo = (v: EventVisibility): PartnerEvent['visibility'] => ({
  default_visibility: v.defaultVisibility,
  ...opt(
    'visibility_override',
    v.override === undefined
      ? undefined
      : { visibility: v.override.visibility, starts_on: v.override.startsOn },
  ),
});

const priceTypeFrom = (t: PriceTypeShape): PriceType => ({
  id: t.id,
  regular: t.regular,
  ...opt('accessCode', t.access_code),
  textInfos: t.text_infos.map((text) => ({
    ...textFrom(text),
    ...opt('additionalInfo', text.additional_info),
    ...opt('printedDescription', text.printed_description),
  })),
});
const priceTypeTo = (t: PriceType): PriceTypeShape => ({
  id: t.id,
  regular: t.regular,
  ...opt('access_code', t.accessCode),
  text_infos: t.textInfos.map((text) => ({
    ...textTo(text),
    ...opt('additional_info', text.additionalInfo),
    ...opt('printed_description', text.printedDescription),
  })),
});

const periodFrom = (p: FaceValuePrices): PricePeriod => ({
  id: p.price_period.id,
  start: p.price_period.start_date_time,
  end: p.price_period.end_date_time,
  prices: p.prices.map((price) => ({
    priceLevelId: price.price_level_id,
    priceTypeId: price.price_type_id,
    amountMinor: minor(price.amount),
  })),
});
const periodTo = (p: PricePeriod): FaceValuePrices => ({
  price_period: { id: p.id, start_date_time: p.start, end_date_time: p.end },
  prices: p.prices.map((price) => ({
    price_level_id: price.priceLevelId,
    price_type_id: price.priceTypeId,
    amount: String(price.amountMinor),
  })),
});

/** The event fields present in a (possibly partial) snake_case event: a patch maps as it is. */
export function eventFieldsFromShape(e: Partial<PartnerEvent>): Partial<EventDetails> {
  return {
    ...opt('manifestId', e.manifest_id),
    ...opt('venueInfo', e.venue_info && { ...e.venue_info }),
    ...opt(
      'organization',
      e.organization_info && {
        promoterId: e.organization_info.promoter_id,
        promoterName: e.organization_info.promoter_name,
      },
    ),
    ...opt('textInfos', e.text_infos?.map(textFrom)),
    ...opt('maximumTicketsQuantity', e.maximum_tickets_quantity),
    ...opt(
      'genres',
      e.genre_info?.map((g) => ({ genreId: g.genre_id, genreName: g.genre_name })),
    ),
    ...opt('dateTime', e.date_time),
    ...opt('dateTimeProperties', e.date_time_properties && propertiesFrom(e.date_time_properties)),
    ...opt('timezone', e.timezone),
    ...opt('currency', e.currency),
    ...opt('secureEntry', e.secure_entry),
    ...opt('visibility', e.visibility && visibilityFrom(e.visibility)),
    ...opt('doorsDateTime', e.doors_date_time),
    ...opt(
      'doorsDateTimeProperties',
      e.doors_date_time_properties && propertiesFrom(e.doors_date_time_properties),
    ),
    ...opt(
      'priceLevels',
      e.price_levels?.map((l) => ({ id: l.id, textInfos: l.text_infos.map(textFrom) })),
    ),
    ...opt('priceTypes', e.price_types?.map(priceTypeFrom)),
    ...opt('faceValuePrices', e.face_value_prices?.map(periodFrom)),
    ...opt('ticketTexts', e.ticket_texts && [...e.ticket_texts]),
    ...opt(
      'logos',
      e.logos?.map((l) => ({ id: l.id, position: l.position })),
    ),
    ...opt(
      'priceComponents',
      e.price_components?.map((c) => ({
        id: c.id,
        amountMinor: minor(c.amount),
        taxPlanId: c.tax_plan_id,
        ...opt('taxableOrganization', c.taxable_organization),
      })),
    ),
    ...opt('salesChannels', e.sales_channels && [...e.sales_channels]),
  };
}

/** A whole snake_case event (a stored one): every required field is there. */
export const eventFromShape = (e: PartnerEvent): EventDetails =>
  eventFieldsFromShape(e) as EventDetails;

/** The event as the 3P API answers it (`event_id`, venue and last change from its record). */
export function eventToShape(
  record: Pick<EventRecord, 'id' | 'venueId' | 'lastModifiedAt' | 'details'>,
): PartnerEvent {
  const e = record.details;
  return {
    event_id: record.id,
    last_modification: record.lastModifiedAt.toISOString(),
    venue_id: record.venueId,
    ...opt('venue_info', e.venueInfo && { ...e.venueInfo }),
    organization_info: {
      promoter_id: e.organization.promoterId,
      promoter_name: e.organization.promoterName,
    },
    manifest_id: e.manifestId,
    text_infos: e.textInfos.map(textTo),
    maximum_tickets_quantity: e.maximumTicketsQuantity,
    genre_info: e.genres.map((g) => ({ genre_id: g.genreId, genre_name: g.genreName })),
    date_time: e.dateTime,
    date_time_properties: propertiesTo(e.dateTimeProperties),
    timezone: e.timezone,
    currency: e.currency,
    ...opt('secure_entry', e.secureEntry),
    visibility: visibilityTo(e.visibility),
    ...opt('doors_date_time', e.doorsDateTime),
    ...opt(
      'doors_date_time_properties',
      e.doorsDateTimeProperties && propertiesTo(e.doorsDateTimeProperties),
    ),
    price_levels: e.priceLevels.map((l) => ({ id: l.id, text_infos: l.textInfos.map(textTo) })),
    price_types: e.priceTypes.map(priceTypeTo),
    face_value_prices: e.faceValuePrices.map(periodTo),
    ...opt('ticket_texts', e.ticketTexts && [...e.ticketTexts]),
    ...opt(
      'logos',
      e.logos?.map((l) => ({ id: l.id, position: l.position })),
    ),
    ...opt(
      'price_components',
      e.priceComponents?.map((c) => ({
        id: c.id,
        amount: String(c.amountMinor),
        tax_plan_id: c.taxPlanId,
        ...opt('taxable_organization', c.taxableOrganization),
      })),
    ),
    ...opt('sales_channels', e.salesChannels && [...e.salesChannels]),
  };
}

// ---------------------------------------------------------------------------------------------
// Manifests

const seatsOf = (seats: ReadonlyArray<{ id: string; row: string; number: string }>) =>
  seats.map((s) => ({ id: s.id, row: s.row, number: s.number }));

export const areaFromShape = (a: ManifestArea): Area => ({
  id: a.id,
  name: a.name,
  ...opt('levelId', a.level_id),
  ...opt('sectionId', a.section_id),
  priceLevelId: a.price_level_id,
  generalAdmission: a.general_admission,
  capacity: a.capacity,
  ...opt('seats', a.seats && seatsOf(a.seats)),
});

export const areaToShape = (a: Area): ManifestArea => ({
  id: a.id,
  name: a.name,
  ...opt('level_id', a.levelId),
  ...opt('section_id', a.sectionId),
  price_level_id: a.priceLevelId,
  general_admission: a.generalAdmission,
  capacity: a.capacity,
  ...opt('seats', a.seats && seatsOf(a.seats)),
});

const named = (items: ReadonlyArray<{ id: string; name: string }>) =>
  items.map((i) => ({ id: i.id, name: i.name }));
const levelsOf = (levels: ReadonlyArray<{ id: string; name: string; position: number }>) =>
  levels.map((l) => ({ id: l.id, name: l.name, position: l.position }));

export const manifestFromShape = (m: ManifestShape): Manifest => ({
  id: m.manifest_id,
  venueId: m.venue_id,
  name: m.name,
  levels: levelsOf(m.levels),
  sections: named(m.sections),
  priceLevels: named(m.price_levels),
  areas: m.areas.map(areaFromShape),
});

export const manifestToShape = (m: Manifest): ManifestShape => ({
  manifest_id: m.id,
  venue_id: m.venueId,
  name: m.name,
  levels: levelsOf(m.levels),
  sections: named(m.sections),
  price_levels: named(m.priceLevels),
  areas: m.areas.map(areaToShape),
});

// ---------------------------------------------------------------------------------------------
// Tickets

export const ticketFromShape = (t: TicketShape): Ticket => ({
  ticketId: t.ticket_id,
  areaId: t.area_id,
  ...opt('levelId', t.level_id),
  ...opt('sectionId', t.section_id),
  row: t.row,
  seat: t.seat,
  ...opt('seatId', t.seat_id),
  generalAdmission: t.general_admission,
  priceLevelId: t.price_level_id,
  priceTypeId: t.price_type_id,
  amountMinor: minor(t.amount),
});

export const ticketToShape = (t: Ticket): TicketShape => ({
  ticket_id: t.ticketId,
  area_id: t.areaId,
  ...opt('level_id', t.levelId),
  ...opt('section_id', t.sectionId),
  row: t.row,
  seat: t.seat,
  ...opt('seat_id', t.seatId),
  general_admission: t.generalAdmission,
  price_level_id: t.priceLevelId,
  price_type_id: t.priceTypeId,
  amount: String(t.amountMinor),
});
