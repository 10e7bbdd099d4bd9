/**
 * What `agent-serve mcp --help` shows beyond the flags: the client configuration to paste
 * (docs/guide/mcp.md "Over stdio"). Its own file so `--help` does not load the command.
 * @module
 */

/** The client configuration `agent-serve mcp --help` shows, and the `mcp oauth` forms. */
export const MCP_HELP = `Client configuration (Claude Desktop, Cursor, VS Code and other MCP clients):
  {
    "mcpServers": {
      "my-agent": {
        "command": "npx",
        "args": ["agent-serve", "mcp", "/path/to/my-agent"]
      }
    }
  }
To a running server instead: "args": ["agent-serve", "mcp", "--url", "http://127.0.0.1:3000/my-agent"]
(add "--bearer-token", "<secret>" when it requires one).

An MCP connection of the agent declared with oauth: true (bot/mcp-connections/<name>.ts):
  agent-serve mcp oauth <name> --dir <project>     authorize it in the browser; the tokens go to the agent's store
  agent-serve mcp oauth --list --dir <project>     what is authorized
  agent-serve mcp oauth <name> --revoke            revoke and remove the tokens`;
