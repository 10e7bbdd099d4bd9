/**
 * Project templates of `agent-serve init`: each maps a project name to its files.
 * @module
 */
import { VERSION } from "./version.ts";

export type Template = (context: { name: string }) => Record<string, string>;

/** The templates `init --template` accepts. */
export const TEMPLATES: Readonly<Record<string, Template>> = {
  basic: ({ name }) => ({
    "package.json": `${JSON.stringify(
      {
        name: name.toLowerCase(),
        private: true,
        type: "module",
        scripts: { dev: "agent-serve dev", start: "agent-serve serve", chat: "agent-serve chat" },
        devDependencies: { "agent-serve": `^${VERSION}` },
      },
      null,
      2,
    )}\n`,
    "bot/agent.ts": [
      `import { defineAgent } from "agent-serve";`,
      ``,
      `// Without a model and a credential the host answers with the offline scripted model`,
      `// ("echo: <your message>"). Set one, e.g. model: "openai/gpt-5-mini", after \`agent-serve login\`.`,
      `export default defineAgent({`,
      `  name: ${JSON.stringify(name)},`,
      `});`,
      ``,
    ].join("\n"),
    "bot/instructions.md": `You are ${name}, a helpful assistant. Answer briefly and plainly.\n`,
    ".gitignore": "node_modules/\n.agent-serve/\n",
  }),
};
