import type { ServiceContext } from '@binzip/shared';
import type { NotificationsModels } from '../models';
import type { PushSender } from './push-sender';

/** `push`: Web Push, when the VAPID keys are configured (issue 38); absent, no notice is pushed. */
export type NotificationsContext = ServiceContext<NotificationsModels> & { push?: PushSender };
