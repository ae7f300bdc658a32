import type { CustomerRow } from './customers.repository.js';
import type { CustomerDto } from './dto/customer.dto.js';

export function toCustomerDto(row: CustomerRow): CustomerDto {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    email_verified: row.email_verified,
  };
}
