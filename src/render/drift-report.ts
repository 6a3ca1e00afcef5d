// The drift report (`telform drift`, and each account of `drift --accounts`): what the live account
// changed outside telform versus manifest changes not yet applied. The drift operation (src/run)
// makes it from a plan; the renderers print it. Its shape and types are in drift-schema.ts; the
// version is here, apart, so that a renderer writing it loads no schema.

/** Version of `drift --format json` (schemas/drift.schema.json); bumped on any incompatible change. */
export const driftReportVersion = 1;
