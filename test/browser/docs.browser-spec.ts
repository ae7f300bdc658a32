import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoSeedService } from '../../src/seed/demo-seed.service.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = 'docs/screenshots';

/**
 * The interactive reference as a user meets it on the demo data (what `npm start` seeds):
 * every operation listed, "Authorize" offering the client credentials flow, and "Try it out"
 * answering with a token the page fetched from the same origin, its pre-filled examples
 * working as they are. Screenshots land in docs/screenshots.
 */
describe('/docs in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let operations: number;
  let credentials: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const demo = await t.app.get(DemoSeedService).seed();
    credentials = { clientId: demo.app.clientId, clientSecret: demo.clientSecret };
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    await mkdir(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The page may only talk to this server: anything else would be a leak (or a CDN).
    await page.route('**/*', (route) =>
      route.request().url().startsWith(base) ? route.continue() : route.abort(),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every operation of the document', async () => {
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBe(operations);
    await page.screenshot({ path: `${SHOTS}/docs-operations.png` });
  });

  it('"Authorize" offers the client credentials flow and fetches a token from this origin', async () => {
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    await expect.poll(() => dialog.innerText()).toContain('clientCredentials');
    const oauth = dialog.locator('.auth-container', { hasText: 'oauth2' });
    expect(await oauth.innerText()).toContain('/builders/oauth/token');
    await oauth.locator('input#client_id_clientCredentials').fill(credentials.clientId);
    await oauth.locator('input#client_secret_clientCredentials').fill(credentials.clientSecret);
    for (const scope of ['products:read', 'orders:read', 'orders:write', 'events:read']) {
      await oauth.locator(`label[for="${scope}-clientCredentials-checkbox-oauth2"]`).click();
    }
    await page.screenshot({ path: `${SHOTS}/docs-authorize.png` });
    const token = page.waitForResponse((r) => r.url() === `${base}/builders/oauth/token`);
    // Swagger UI labels it "Apply given OAuth2 credentials".
    await oauth.locator('button.authorize').click();
    expect((await token).status()).toBe(200);
    await expect.poll(() => oauth.innerText()).toContain('Logout');
    await dialog.locator('button.close-modal').click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('"Try it out" on GET /v1/products answers 200 with the catalog', async () => {
    const operation = page.locator('#operations-products-ProductsController_list');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const answer = page.waitForResponse((r) => r.url().startsWith(`${base}/v1/products`));
    await operation.getByRole('button', { name: 'Execute' }).click();
    expect((await answer).status()).toBe(200);
    const live = operation.locator('.live-responses-table');
    await expect.poll(() => live.innerText()).toContain('TSHIRT-BLK-M');
    await operation.screenshot({ path: `${SHOTS}/docs-try-it.png` });
  });

  /** Opens an operation, "Try it out" with what the page pre-filled, and its answer. */
  async function tryItOut(id: string, path: string, method: string): Promise<[number, string]> {
    const operation = page.locator(`#operations-${id}`);
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const answer = page.waitForResponse(
      (r) => r.request().method() === method && new URL(r.url()).pathname === path,
    );
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answer;
    return [response.status(), await response.text()];
  }

  it('the pre-filled examples work on the demo data: an order, then the lists that find it', async () => {
    // The body's customer is a guest (an id would be 422 unknown_customer), product 1 exists.
    const [created, order] = await tryItOut('orders-OrdersController_create', '/v1/orders', 'POST');
    expect({ status: created, body: order }).toMatchObject({ status: 201 });
    const { id } = JSON.parse(order) as { id: number };
    // Every filter pre-filled (statuses, both time bounds): the new order is in the list.
    const [listed, list] = await tryItOut('orders-OrdersController_list', '/v1/orders', 'GET');
    expect({ status: listed, body: list }).toMatchObject({ status: 200 });
    expect((JSON.parse(list) as { data: Array<{ id: number }> }).data.map((o) => o.id)).toContain(
      id,
    );
    const [fed, feed] = await tryItOut('events-EventsController_feed', '/v1/events', 'GET');
    expect({ status: fed, body: feed }).toMatchObject({ status: 200 });
    expect(JSON.parse(feed)).toMatchObject({ data: [{ type: 'order.created' }] });
  });
});
