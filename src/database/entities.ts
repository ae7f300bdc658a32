import { App } from '../apps/app.entity.js';
import { Product } from '../products/product.entity.js';
import { Tenant } from '../tenants/tenant.entity.js';

export const ENTITIES = [Tenant, App, Product];
