import type { ServiceContext } from '@binzip/shared';
import type { CommunityModels } from '../models';

export type CommunityContext = ServiceContext<CommunityModels>;
