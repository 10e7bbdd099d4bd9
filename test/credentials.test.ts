import { mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  credentialsFilePath,
  readCredentialsFile,
  removeCredentialsFile,
  resolveCredentials,
  writeCredentialsFile,
} from "../loader/credentials.ts";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-serve-credentials-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const store = (data: Record<string, unknown>) => writeFileSync(join(dir, "credentials.json"), JSON.stringify(data));

describe("resolveCredentials", () => {
  it("prefers --api-key, then the environment, then the stored login", () => {
    store({ openai: "stored-openai", anthropic: "stored-anthropic", "openai-compatible": "stored-local" });
    const env = { OPENAI_API_KEY: "env-openai", ANTHROPIC_API_KEY: "env-anthropic" };
    expect(resolveCredentials({ apiKey: "flag-openai", env, configDir: dir })).toEqual({
      openai: "flag-openai",
      anthropic: "env-anthropic",
      "openai-compatible": "stored-local",
    });
    expect(resolveCredentials({ env, configDir: dir })).toMatchObject({ openai: "env-openai", anthropic: "env-anthropic" });
    expect(resolveCredentials({ env: {}, configDir: dir })).toEqual({
      openai: "stored-openai",
      anthropic: "stored-anthropic",
      "openai-compatible": "stored-local",
    });
  });

  it("applies --api-key to the named provider only", () => {
    const creds = resolveCredentials({ apiKey: "flag", provider: "anthropic", env: { OPENAI_API_KEY: "env-openai" }, configDir: dir });
    expect(creds).toEqual({ anthropic: "flag", openai: "env-openai" });
  });

  it("reads the openai-compatible key from its env var", () => {
    const creds = resolveCredentials({ env: { AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY: "local" }, configDir: dir });
    expect(creds).toEqual({ "openai-compatible": "local" });
  });

  it("treats empty values as absent", () => {
    store({ openai: "stored" });
    expect(resolveCredentials({ apiKey: "", env: { OPENAI_API_KEY: "  " }, configDir: dir })).toEqual({ openai: "stored" });
  });

  it("finds the login file through AGENT_SERVE_CONFIG_DIR when no configDir is given", () => {
    store({ anthropic: "from-env-dir" });
    expect(resolveCredentials({ env: { AGENT_SERVE_CONFIG_DIR: dir } })).toEqual({ anthropic: "from-env-dir" });
  });

  it("ignores a missing or malformed login file", () => {
    expect(resolveCredentials({ env: {}, configDir: dir })).toEqual({});
    writeFileSync(join(dir, "credentials.json"), "{not json");
    expect(resolveCredentials({ env: {}, configDir: dir })).toEqual({});
    store({ openai: 42, anthropic: "ok" });
    expect(resolveCredentials({ env: {}, configDir: dir })).toEqual({ anthropic: "ok" });
  });
});

describe("credentialsFilePath", () => {
  it("uses AGENT_SERVE_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config", () => {
    expect(credentialsFilePath({ AGENT_SERVE_CONFIG_DIR: "/a", XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/a/credentials.json");
    expect(credentialsFilePath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/agent-serve/credentials.json");
    expect(credentialsFilePath({ HOME: "/h" })).toBe("/h/.config/agent-serve/credentials.json");
  });
});

describe("the login file", () => {
  it("is written with mode 0600, read back and removed", () => {
    const path = join(dir, "nested", "credentials.json");
    writeCredentialsFile(path, { openai: "sk-1" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readCredentialsFile(path)).toEqual({ openai: "sk-1" });
    expect(removeCredentialsFile(path)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(removeCredentialsFile(path)).toBe(false);
  });

  it("tightens the mode of an existing file", () => {
    const path = join(dir, "credentials.json");
    writeFileSync(path, "{}", { mode: 0o644 });
    writeCredentialsFile(path, { anthropic: "k" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
