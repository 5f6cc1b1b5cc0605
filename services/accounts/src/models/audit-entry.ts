import { registerModel, type AuditService, type AuditTargetType } from '@binzip/shared';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One administrator's action, as the service that took it published it (`audit.<service>`, issue 40). `_id` is the
 * event id, so a redelivered or re-published event is stored once. Written only by the consumer; no operation
 * changes or deletes an entry.
 */
export interface AuditEntryDoc {
  _id: string;
  service: AuditService;
  actorId: number;
  /** The actor's userName as the token named it at the time of the action. */
  actorUserName: string;
  action: string;
  targetType: AuditTargetType;
  targetId: number;
  memberId: number | null;
  reason: string | null;
  requestId: string | null;
  at: Date;
}

const auditEntrySchema = new Schema<AuditEntryDoc>(
  {
    _id: { type: String, required: true },
    service: { type: String, required: true },
    actorId: { type: Number, required: true },
    actorUserName: { type: String, required: true },
    action: { type: String, required: true },
    targetType: { type: String, required: true },
    targetId: { type: Number, required: true },
    memberId: { type: Number, default: null },
    reason: { type: String, default: null },
    requestId: { type: String, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'audit_entries' },
);
// Newest first, alone (a from/to range bounds it) or after one equality filter: the actor (by id or userName), the
// action, the target (type, or type and id, or id alone) and the member concerned (a member's page).
auditEntrySchema.index({ at: -1, _id: -1 });
auditEntrySchema.index({ actorId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ actorUserName: 1, at: -1, _id: -1 });
auditEntrySchema.index({ action: 1, at: -1, _id: -1 });
auditEntrySchema.index({ targetType: 1, targetId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ targetId: 1, at: -1, _id: -1 });
auditEntrySchema.index({ memberId: 1, at: -1, _id: -1 });

export const auditEntryModel = (connection: Connection): Model<AuditEntryDoc> => registerModel(connection, 'AuditEntry', auditEntrySchema);
