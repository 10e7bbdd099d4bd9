/**
 * The LangGraph peer of bench/peers/run.ts: one node answering "hello" from LangChain's fake chat
 * model, served by the LangGraph JS dev server (`langgraphjs dev`).
 */
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

const model = new FakeListChatModel({ responses: ["hello"] });

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge("__start__", "agent")
  .addEdge("agent", "__end__")
  .compile();
