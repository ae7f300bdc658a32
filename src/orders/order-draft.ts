import type { OrderCustomerInput, ShippingAddressInput } from './dto/create-order.dto.js';
import { priceLines, type PricedLine } from './pricing.js';

/**
 * How the order finds its customer: `id` must be a customer of the tenant (else 422
 * unknown_customer); `id-or-email` takes the id when it is one, else the customer with the
 * email (marketplace imports); `email` links by email only. By email, only a customer whose
 * email is verified: registering someone else's address must never show you their orders.
 */
export type CustomerLink =
  | { kind: 'id'; id: number }
  | { kind: 'id-or-email'; id: number; email: string }
  | { kind: 'email'; email: string };

/** An order as the writer takes it: priced, its customer link decided; the tenant is the path's. */
export interface OrderDraft {
  customer: { name: string; email: string; phone?: string | null };
  link: CustomerLink;
  shipping: {
    country: string;
    city: string;
    district?: string | null;
    address: string;
    postal_code?: string | null;
  };
  lines: PricedLine[];
  totalMinor: number;
  source: 'api' | 'marketplace';
  marketplace?: string | null;
  externalOrderId?: string | null;
  appId: number | null;
}

/** Where an order comes from: the API, or a marketplace's order by its own id. */
export type OrderOrigin =
  { source: 'api' } | { source: 'marketplace'; marketplace: string; externalOrderId: string };

/** What both ways in (API create, marketplace import) know of an order before it is priced. */
export interface OrderInput {
  customer: OrderCustomerInput;
  shipping: ShippingAddressInput;
  /** Each line's product (null when the catalog has none), sku, name, quantity and unit price. */
  lines: Array<Omit<PricedLine, 'totalMinor'>>;
  origin: OrderOrigin;
  /** The app that sent the order (for the import, the one that queued it). */
  appId: number | null;
}

/**
 * The draft of an order, one way for the API and the marketplace import: exact totals
 * (pricing.ts) and the customer link. A `customer.id` sent to the API must be a customer of
 * the tenant; one sent by a marketplace is a hint, with the verified email as the fallback.
 */
export function orderDraft(input: OrderInput): OrderDraft {
  const { id, name, email, phone } = input.customer;
  const priced = priceLines(input.lines);
  const { origin } = input;
  let link: CustomerLink;
  if (id === undefined) link = { kind: 'email', email };
  else if (origin.source === 'api') link = { kind: 'id', id };
  else link = { kind: 'id-or-email', id, email };
  return {
    customer: { name, email, phone },
    link,
    shipping: input.shipping,
    lines: priced.lines,
    totalMinor: priced.totalMinor,
    source: origin.source,
    marketplace: origin.source === 'marketplace' ? origin.marketplace : null,
    externalOrderId: origin.source === 'marketplace' ? origin.externalOrderId : null,
    appId: input.appId,
  };
}
