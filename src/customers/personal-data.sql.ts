/**
 * SQL expressions that remove a person's data from stored JSON documents
 * (docs/BEHAVIOUR.md#customer-data-rights), so that every place holding a copy of an Order, a
 * Customer or an import payload is redacted by the same rule as the row itself.
 */

/**
 * The area part of a postal code: 2–5 letters or digits before its first space or hyphen
 * ("SW1A 1AA" → "SW1A", "94105-1234" → "94105"); null for anything else, which may name a
 * street or be no postal code at all.
 */
export function postalAreaSql(code: string): string {
  return `substring(${code} from '^([A-Za-z0-9]{2,5})[[:space:]-]')`;
}

/**
 * `doc` with its person removed, for an order-shaped document (an Order, or a marketplace import
 * payload): `customer.name`, `email` and `phone` become null when it has a `customer` object;
 * `shipping_address.address` and `district` become null and `postal_code` keeps its area when it
 * has a `shipping_address` object. `customer.id`, `country` and `city` stay. Anything else is
 * returned unchanged.
 */
export function redactedOrderSql(doc: string): string {
  return `CASE WHEN jsonb_typeof(${doc}) <> 'object' THEN ${doc} ELSE (${doc})
    || CASE WHEN jsonb_typeof(${doc}->'customer') = 'object'
      THEN jsonb_build_object('customer', ${redactedCustomerSql(`${doc}->'customer'`)})
      ELSE '{}'::jsonb END
    || CASE WHEN jsonb_typeof(${doc}->'shipping_address') = 'object'
      THEN jsonb_build_object('shipping_address', (${doc}->'shipping_address') || jsonb_build_object(
        'address', null, 'district', null,
        'postal_code', ${postalAreaSql(`(${doc}->'shipping_address'->>'postal_code')`)}))
      ELSE '{}'::jsonb END END`;
}

/** A Customer document with name, email and phone null. */
export function redactedCustomerSql(doc: string): string {
  return `(${doc}) || '{"name": null, "email": null, "phone": null}'::jsonb`;
}

/** An event's `data`: its `object` and its `order`, wherever they hold an order or a customer. */
export function redactedEventDataSql(data: string, isCustomerEvent: string): string {
  const object = `CASE WHEN ${isCustomerEvent} THEN ${redactedCustomerSql(`${data}->'object'`)}
    ELSE ${redactedOrderSql(`(${data}->'object')`)} END`;
  return `CASE WHEN jsonb_typeof(${data}->'object') = 'object'
      THEN jsonb_set(${data}, '{object}', ${object}) ELSE ${data} END
    || CASE WHEN jsonb_typeof(${data}->'order') = 'object'
      THEN jsonb_build_object('order', ${redactedOrderSql(`(${data}->'order')`)})
      ELSE '{}'::jsonb END`;
}
