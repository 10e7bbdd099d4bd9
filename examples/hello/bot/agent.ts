import { defineAgent } from "agent-serve";

// No model: with no credential configured the host serves the offline scripted model.
export default defineAgent({ name: "Hello" });
