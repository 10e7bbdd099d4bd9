/** The name of the one coordinator object (docs/design/cloudflare.md "The three parts"). */
export const COORDINATOR_NAME = "coordinator";
