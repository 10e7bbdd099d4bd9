/**
 * The protocol's errors (docs/guide/a2a.md "JSON-RPC errors", "HTTP+JSON"): every failure a caller can cause is one of
 * these, with its JSON-RPC code and its HTTP status, never a 500.
 * @module
 */

export const A2A_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  extendedCardNotConfigured: -32007,
  versionNotSupported: -32009,
} as const;

export type A2AErrorKind = keyof typeof A2A_CODES;

export class A2AError extends Error {
  override readonly name = "A2AError";
  readonly kind: A2AErrorKind;
  readonly code: number;

  constructor(kind: A2AErrorKind, message: string) {
    super(message);
    this.kind = kind;
    this.code = A2A_CODES[kind];
  }

  static isError(value: unknown): value is A2AError {
    return value instanceof Error && value.name === "A2AError" && "kind" in value;
  }
}

export const taskNotFound = (id: string): A2AError => new A2AError("taskNotFound", `task not found: ${JSON.stringify(id)}`);
export const invalidParams = (message: string): A2AError => new A2AError("invalidParams", message);
export const unsupported = (message: string): A2AError => new A2AError("unsupportedOperation", message);
