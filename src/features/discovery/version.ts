import pkg from "../../../package.json" with { type: "json" };

/** The package version, as in `package.json` (`GET /v1/meta`). */
export const VERSION: string = pkg.version;
