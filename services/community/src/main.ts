import { runService } from '@binzip/shared';
import { service } from './service';

runService(service);
