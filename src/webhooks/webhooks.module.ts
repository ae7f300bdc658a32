import { Module } from '@nestjs/common';
import { ServerSecrets } from '../config/server-secrets.js';
import { EventsModule } from '../events/events.module.js';
import { QueueModule } from '../queue/queue.module.js';
import { SecretBox } from './secret-box.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliverySlotsRepository } from './webhook-delivery-slots.repository.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.service.js';
import { WebhookDispatchRepository } from './webhook-dispatch.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.service.js';
import { WebhookOutcomeRecorder } from './webhook-outcome-recorder.service.js';
import { WebhookRecovery } from './webhook-recovery.service.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

/** Webhooks read the event log (a dispatcher and a job worker); writers never call them. */
@Module({
  imports: [QueueModule, EventsModule],
  controllers: [WebhookEndpointsController],
  providers: [
    {
      provide: SecretBox,
      useFactory: (s: ServerSecrets) => new SecretBox(s.pepper),
      inject: [ServerSecrets],
    },
    WebhookEndpointsRepository,
    WebhookEndpointsService,
    WebhookDeliveriesRepository,
    WebhookDeliverySlotsRepository,
    WebhookDeliverySlots,
    WebhookDispatchRepository,
    WebhookDispatcher,
    WebhookOutcomeRecorder,
    WebhookDeliveryWorker,
    WebhookRecovery,
  ],
  exports: [WebhookDispatcher, WebhookRecovery],
})
export class WebhooksModule {}
