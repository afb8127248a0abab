// A Pi extension that gives Pi a scripted model, so Pi's own CLI (print/json and rpc modes,
// its agent loop, its real read/bash/edit/write tools, its session file) runs without a model
// service. It registers pi-ai's faux provider as provider "scripted", model "scripted-1", and
// feeds it the replies of the run named by PI_SCRIPTED_RUN (below). Each reply is streamed by
// the faux provider in small deltas, as a real model's would be.
//
// It also appends one extension entry (pi.appendEntry) when the agent edits a file, so the
// streams hold an `entry_appended` record and the session file the matching `custom` entry.
//
// Used by tools/pi_written/headless_runs.mjs:  pi -e scripted_model.mjs --provider scripted ...
import { fauxAssistantMessage, fauxProvider, fauxText, fauxThinking, fauxToolCall } from "@earendil-works/pi-ai";

const say = (blocks, stopReason = "stop", more = {}) => fauxAssistantMessage(blocks, { stopReason, ...more });
const call = (name, args, id) => fauxToolCall(name, args, { id });
// The diagnostic pi-ai's OpenAI Responses provider appends when the API withheld replayed
// reasoning items (appendReasoningRemovals in openai-responses-shared.js)
const dropped = (ids) => ({
  type: "openai_input_transformations", timestamp: Date.now(),
  details: { transformations: ids.map((id) => ({ type: "reasoning", id, action: "removed", reason: "prefix_mismatch" })) },
});

// The replies of each run, in the order Pi asks for them (a compaction's summary is a reply too).
const RUNS = {
  // pi -p --mode json: read, a failing test, an edit, two calls at once, a write, an answer
  "json-fix": [
    say([
      fauxThinking("The test says the greeting is wrong. I'll **read** `greet.py` first."),
      fauxText("Let me look at the greeting code."),
      call("read", { path: "greet.py" }, "call_read_greet"),
    ], "toolUse"),
    say([call("bash", { command: "python3 test_greet.py" }, "call_bash_test1")], "toolUse"),
    say([
      fauxText("The test fails: `greet` drops the comma. Fixing it."),
      call("edit", { path: "greet.py", edits: [{ oldText: 'f"Hello {name}!"', newText: 'f"Hello, {name}!"' }] },
        "call_edit_greet"),
    ], "toolUse"),
    say([
      call("bash", { command: "python3 test_greet.py && echo all passed" }, "call_bash_test2"),
      call("read", { path: "test_greet.py", offset: 3, limit: 1 }, "call_read_test"),
    ], "toolUse"),
    say([call("write", { path: "NOTES.md", content: "# Notes\n\n- greet() now puts a comma after Hello.\n" },
      "call_write_notes")], "toolUse"),
    say([fauxText("Fixed: `greet()` in **greet.py** now returns `Hello, <name>!` and the test passes. "
      + "I noted the change in NOTES.md.")]),
  ],
  // pi -p --mode json: the model service is overloaded once (Pi retries), then answers
  "json-retry": [
    say([], "error", { errorMessage: "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}" }),
    say([call("ls", { path: "." }, "call_ls_root")], "toolUse"),
    say([fauxText("The project holds `greet.py` and its test, `test_greet.py`.")]),
  ],
  // pi -p --mode json: the model service refuses the request (not retried): the run fails
  "json-failed": [
    say([], "error", { errorMessage: "401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}" }),
  ],
  // pi --mode rpc: two prompts (the second one steered while a command runs), a compaction
  "rpc": [
    say([fauxThinking("A quick look at the folder."), call("bash", { command: "ls" }, "call_rpc_ls")], "toolUse"),
    say([fauxText("There are two files: `greet.py` and `test_greet.py`.")]),
    say([fauxText("Running the test, slowly."), call("bash", { command: "sleep 1; python3 test_greet.py" }, "call_rpc_slow")],
      "toolUse"),
    say([fauxText("Understood: I'll stop here. The test failed with an AssertionError (the missing comma).")]),
    // the compaction's summary
    say([fauxText("## Goal\nLook at the greet project.\n\n## Progress\n- Listed the files.\n- The test fails: "
      + "`greet()` lacks a comma.\n\n## Next steps\n- Fix `greet.py`.")]),
    say([fauxText("From the summary: the fix left is the comma in `greet()`.")]),
  ],
  // Pi 1.6 (pi -p --mode json), a model without image input reads an image: Pi's read tool keeps
  // the image and says so in details.imageUnsupportedByModel
  "json-image-unsupported": [
    say([fauxText("Let me look at the logo."), call("read", { path: "logo.png" }, "call_read_logo")], "toolUse"),
    say([fauxText("I can't see images with this model; the file is a PNG.")]),
  ],
  // Pi 1.6 (pi --mode rpc): Esc (abort) while a batch of calls is being prepared: the calls that
  // never started get an "Operation aborted" result each; then the user asks again
  "rpc-abort-batch": [
    say([fauxText("Running the test and reading the code."),
      call("bash", { command: "python3 test_greet.py" }, "call_abort_test"),
      call("read", { path: "greet.py" }, "call_abort_read")], "toolUse"),
    say([fauxText("Stopped. Nothing ran; tell me when to go on.")]),
  ],
  // Pi 1.6 (pi -p --mode json): a provider reports reasoning it withheld from a request (the
  // diagnostic OpenAI's provider records for GPT-6.2's prefix_mismatch), once new, then again
  // for the same item on the next request, as providers do
  "json-reasoning-dropped": [
    say([fauxThinking("List first."), call("ls", { path: "." }, "call_drop_ls")], "toolUse"),
    { ...say([fauxThinking("Now the code."), call("read", { path: "greet.py" }, "call_drop_read")], "toolUse"),
      diagnostics: [dropped(["rs_01a"])] },
    { ...say([fauxText("`greet.py` holds one function, `greet(name)`.")]), diagnostics: [dropped(["rs_01a"])] },
  ],
  // pi --mode rpc: a prompt, then new_session and a prompt in the new session
  "rpc-new-session": [
    say([fauxText("It greets someone by name: `greet(\"Ada\")`.")]),
    say([call("write", { path: "CHANGELOG.md", content: "# Changelog\n\n- Started afresh.\n" }, "call_write_log")],
      "toolUse"),
    say([fauxText("Wrote CHANGELOG.md.")]),
  ],
};

export default function (pi) {
  const run = process.env.PI_SCRIPTED_RUN;
  const replies = RUNS[run];
  if (!replies) throw new Error(`PI_SCRIPTED_RUN must name one of: ${Object.keys(RUNS).join(", ")}`);
  const faux = fauxProvider({
    api: "scripted",
    provider: "scripted",
    models: [
      { id: "scripted-1", name: "Scripted model", reasoning: true, contextWindow: 200000, maxTokens: 8192 },
      // a model that takes no images (Pi 1.6's read then notes that it saw a placeholder)
      { id: "scripted-text", name: "Scripted text model", reasoning: true, input: ["text"], contextWindow: 200000,
        maxTokens: 8192 },
    ],
    tokenSize: { min: 2, max: 4 },
  });
  faux.setResponses(replies);
  pi.registerProvider(faux.provider);
  // a slow permission check on one call (as a gate extension that asks would be): Esc while it
  // waits aborts the batch before any of its calls ran
  pi.on("tool_call", async (event) => {
    if (event.toolCallId === "call_abort_read") await new Promise((res) => setTimeout(res, 1500));
  });
  pi.on("tool_result", async (event) => {
    if (event.toolName === "edit" && !event.isError) {
      pi.appendEntry("scripted.files", { edited: [event.input?.path], by: event.toolCallId });
    }
  });
}
