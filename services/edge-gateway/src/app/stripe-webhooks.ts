/**
 * The edge's port to cart for Stripe's webhook events (CartService.HandleStripeEvent). The edge
 * verifies the signature; cart acts on the event, once per event id.
 */
export interface StripeWebhookSink {
  handleStripeEvent(event: {
    eventId: string;
    type: string;
    /** The event's `data.object` as JSON. */
    objectJson: string;
    created: Date;
  }): Promise<{ duplicate: boolean; outcome: string }>;
}
