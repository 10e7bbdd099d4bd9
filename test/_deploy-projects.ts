/**
 * Tool files for the deploy-safe tests (docs/design/deploy-safe-sessions.md): a project folder
 * whose tools are rewritten between runs.
 */

/**
 * A tool file whose input is `{[field]: string}`, checked by an inline Standard Schema (no
 * package to resolve from the temporary folder) that describes itself as JSON Schema.
 */
export const gatedTool = (field: string, verb: string): string => `
const inputSchema = {
  "~standard": {
    version: 1,
    vendor: "inline",
    validate: (value) =>
      value && typeof value === "object" && typeof value.${field} === "string"
        ? { value }
        : { issues: [{ message: "${field} must be a string", path: ["${field}"] }] },
    jsonSchema: { input: () => ({ type: "object", properties: { ${field}: { type: "string" } }, required: ["${field}"] }) },
  },
};
export default { description: "${verb} things", inputSchema, needsApproval: true, execute: (input) => "${verb} " + input.${field} };
`;
