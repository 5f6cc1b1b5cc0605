import type { ServiceContext } from '@binzip/shared';
import type { NotificationsModels } from '../models';

export type NotificationsContext = ServiceContext<NotificationsModels>;
