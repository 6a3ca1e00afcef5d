// The plan's types, for code that makes, reads or shows plans: inferred from the schema in
// plan-schema.ts and re-exported here as types only, so importing them loads no zod and builds no
// schema (a plan, a drift or an apply never checks its own plan against the schema).
export type {
  ApprovalTable,
  BlastRadius,
  BlastTotals,
  ChangeFields,
  ChangeFlags,
  CreateChange,
  DeleteChange,
  Plan,
  PlanAction,
  PlanApprovals,
  PlanFinding,
  PlannedChange,
  PlanSeal,
  PlanSummary,
  ReplaceChange,
  SecretChange,
  UnmanagedObject,
  UpdateChange,
  WaitChange,
} from './plan-schema.js';
