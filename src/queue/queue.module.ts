import { Module } from '@nestjs/common';
import { JobQueue } from './job-queue.service.js';

@Module({ providers: [JobQueue], exports: [JobQueue] })
export class QueueModule {}
