import type { PricedLine } from './pricing.js';

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
