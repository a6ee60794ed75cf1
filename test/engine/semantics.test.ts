/**
 * The tricky cases of SEMANTICS.md section D (vLLM 0.16, D1–D15 and EngineCoreRequest), and the
 * section B rules they do not already cover, on a miniature package of our own:
 * test/fixtures/semantics/lib. Each fixture module reproduces the API facts of one case (names,
 * parameters and their order, kinds and defaults, bases, decorators, metaclasses, module layout,
 * re-exports) with trivial bodies.
 *
 * Every test asserts the exact set of findings of its user snippet: the lines that must fail, and
 * by omission every line that must bind. Where SEMANTICS gives a signature, the signature the
 * engine derived is asserted too. For UNKNOWN cases, the call must stay silent and, when the
 * engine records it, carry an unknownReason.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine, type CallInfo, type CheckResult } from '../../server/src/engine';
import { FIXTURES } from '../helpers';

const TARGET = path.join(FIXTURES, 'semantics');

let opened: Promise<Engine> | undefined;
function engine(): Promise<Engine> {
  opened ??= Engine.open({ targets: [TARGET] });
  return opened;
}

/** Checks a user file made of `lines` (line N of the file is lines[N - 1]). */
async function check(lines: string[]): Promise<CheckResult> {
  return (await engine()).check(lines.join('\n') + '\n', 'user.py');
}

/** Findings as `line:code:param`, or `line:code:callee` when there is no parameter; sorted. */
function found(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? f.callee}`).sort();
}

function expectFindings(r: CheckResult, expected: string[]): void {
  assert.deepEqual(found(r), [...expected].sort());
}

function callsAt(r: CheckResult, line: number): CallInfo[] {
  return r.calls.filter((c) => c.range.start.line + 1 === line);
}

/** The call on `line` was bound against a derived signature (not skipped, not unknown). */
function checkedAt(r: CheckResult, line: number): CallInfo {
  const calls = callsAt(r, line);
  assert.equal(calls.length, 1, `one call recorded on line ${line}: ${JSON.stringify(calls)}`);
  const c = calls[0];
  assert.equal(c.unknownReason, undefined, `line ${line} is unknown: ${c.unknownReason}`);
  assert.ok(c.signatures.length > 0, `line ${line} has no signature`);
  return c;
}

function checkedLines(r: CheckResult, lines: number[]): void {
  for (const l of lines) checkedAt(r, l);
}

/** The call on `line`, when recorded at all, is recorded as deliberately unknown. */
function unknownAt(r: CheckResult, line: number, mustBeRecorded = true): void {
  const calls = callsAt(r, line);
  if (!mustBeRecorded && calls.length === 0) return;
  assert.ok(calls.length > 0, `no call recorded on line ${line}`);
  for (const c of calls) assert.ok(c.unknownReason, `line ${line} should be unknown, got ${JSON.stringify(c.signatures)}`);
}

function signaturesAt(r: CheckResult, line: number): string[] {
  return checkedAt(r, line).signatures;
}

const SAMPLING_PARAMS_SIG =
  'SamplingParams(n: int = 1, presence_penalty: float = 0.0, frequency_penalty: float = 0.0, repetition_penalty: float = 1.0, ' +
  'temperature: float = 1.0, top_p: float = 1.0, top_k: int = 0, min_p: float = 0.0, seed: int | None = None, ' +
  'stop: str | list[str] | None = None, stop_token_ids: list[int] | None = None, ignore_eos: bool = False, ' +
  'max_tokens: int | None = 16, min_tokens: int = 0, logprobs: int | None = None, prompt_logprobs: int | None = None, ' +
  'flat_logprobs: bool = False, detokenize: bool = True, skip_special_tokens: bool = True, spaces_between_special_tokens: bool = True, ' +
  'logits_processors: Any | None = None, include_stop_str_in_output: bool = False, truncate_prompt_tokens: int | None = None, ' +
  'output_kind: RequestOutputKind = RequestOutputKind.CUMULATIVE, skip_clone: bool = False, output_text_buffer_length: int = 0, ' +
  '_all_stop_token_ids: set[int] = <factory>, structured_outputs: StructuredOutputsParams | None = None, ' +
  'logit_bias: dict[int, float] | None = None, allowed_token_ids: list[int] | None = None, extra_args: dict[str, Any] | None = None, ' +
  'bad_words: list[str] | None = None, _bad_words_token_ids: list[list[int]] | None = None, skip_reading_prefix_cache: bool | None = None)';

const positionals = (n: number): string => Array.from({ length: n }, (_, i) => String(i + 1)).join(', ');

describe('SEMANTICS D: tricky cases from vLLM 0.16', () => {
  it('D1 SamplingParams: a fieldless mixin before msgspec.Struct still gives the 34 struct fields', async () => {
    const r = await check([
      'from lib.sampling_params import SamplingParams', // 1
      'from lib.rules.unknowns import MixinFirst', // 2
      'SamplingParams(max_tokens=1, temperature=0.0)', // 3 ok (pyright: No parameter named "max_tokens")
      'SamplingParams(2)', // 4 ok: fields are positional-or-keyword
      'SamplingParams(_all_stop_token_ids=set(), _bad_words_token_ids=None)', // 5 ok: msgspec has no private fields
      'SamplingParams(best_of=2)', // 6 removed in 0.12
      `SamplingParams(${positionals(35)})`, // 7 34 fields
      'SamplingParams.from_optional(n=2, temperature=0.5)', // 8 ok: staticmethod
      'MixinFirst(max_tokens=1)', // 9 the minimal repro: mixin, then an unresolvable base, no __init__: UNKNOWN
    ]);
    expectFindings(r, ['6:unexpected-keyword:best_of', '7:too-many-positional:lib.sampling_params.SamplingParams']);
    checkedLines(r, [3, 4, 5, 8]);
    assert.deepEqual(signaturesAt(r, 3), [SAMPLING_PARAMS_SIG]);
    unknownAt(r, 9);
  });

  it('D2 SchedulerConfig: @config pydantic dataclass with InitVars, ClassVars, init=False and extra=forbid', async () => {
    const r = await check([
      'from lib.config import SchedulerConfig', // 1 (re-exported by the package)
      'SchedulerConfig(max_model_len=1024)', // 2 TRUE POSITIVE since 0.12: is_encoder_decoder has no default
      'SchedulerConfig(max_model_len=1024, is_encoder_decoder=False)', // 3 ok
      'SchedulerConfig(1024, False, "generate", 4096)', // 4 ok: InitVars come first, positionally
      'SchedulerConfig(1024, False, DEFAULT_MAX_NUM_SEQS=4)', // 5 a ClassVar is no field; extra=forbid
      'SchedulerConfig(1024, False, max_num_encoder_input_tokens=4)', // 6 init=False: pydantic may accept it, never report
      'SchedulerConfig(1024, False, cuda_graph_sizes=[1])', // 7 removed; extra=forbid
      `SchedulerConfig(${positionals(17)})`, // 8 16 parameters
    ]);
    expectFindings(r, [
      '2:missing-argument:is_encoder_decoder',
      '5:unexpected-keyword:DEFAULT_MAX_NUM_SEQS',
      '7:unexpected-keyword:cuda_graph_sizes',
      '8:too-many-positional:lib.config.scheduler.SchedulerConfig',
    ]);
    checkedLines(r, [3, 4, 6]);
    assert.deepEqual(signaturesAt(r, 2), [
      'SchedulerConfig(max_model_len: InitVar[int], is_encoder_decoder: InitVar[bool], runner_type: RunnerType = "generate", ' +
        'max_num_batched_tokens: int = DEFAULT_MAX_NUM_BATCHED_TOKENS, max_num_seqs: int = DEFAULT_MAX_NUM_SEQS, ' +
        'max_num_partial_prefills: int = 1, max_long_partial_prefills: int = 1, long_prefill_token_threshold: int = 0, ' +
        'enable_chunked_prefill: bool = True, is_multimodal_model: bool = False, policy: SchedulerPolicy = "fcfs", ' +
        'disable_chunked_mm_input: bool = False, scheduler_cls: str | type[object] = None, ' +
        'disable_hybrid_kv_cache_manager: bool | None = None, async_scheduling: bool = None, stream_interval: int = 1)',
    ]);
    const f = r.findings.find((x) => x.param === 'is_encoder_decoder')!;
    assert.ok(f.definition?.file.endsWith(path.join('lib', 'config', 'scheduler.py')), f.definition?.file);
  });

  it('D3 Request: a plain __init__; a positional shift that still binds cannot be reported', async () => {
    const r = await check([
      'from lib.v1.request import Request', // 1
      'Request("r", [1], None, None, 2)', // 2 ok
      `Request("r", [1], None, None, 2, 0, 0.0, None, None, None, None, 0, None, None, False, None)`, // 3 ok: all 16
      'Request("r", [1], None, None)', // 4 eos_token_id is required
      'Request("r", [1], None, None, 2, structured_output_request=None)', // 5 removed in 0.12
      // written for main-2604 (no eos_token_id): binds in 0.16 with every argument shifted by one; no arity error exists
      'Request("r", [1], None, None, 0, 0.0)', // 6 silent
      'Request.from_engine_core_request(req, hasher)', // 7 ok: classmethod through the class
      'Request.from_engine_core_request(req)', // 8 missing block_hasher
    ]);
    expectFindings(r, ['4:missing-argument:eos_token_id', '5:unexpected-keyword:structured_output_request', '8:missing-argument:block_hasher']);
    checkedLines(r, [2, 3, 6, 7]);
    assert.deepEqual(signaturesAt(r, 2), [
      'Request(request_id: str, prompt_token_ids: list[int] | None, sampling_params: SamplingParams | None, ' +
        'pooling_params: PoolingParams | None, eos_token_id: int | None, client_index: int = 0, arrival_time: float | None = None, ' +
        'prompt_embeds: torch.Tensor | None = None, mm_features: list | None = None, lora_request: "LoRARequest | None" = None, ' +
        'cache_salt: str | None = None, priority: int = 0, trace_headers: Mapping[str, str] | None = None, ' +
        'block_hasher: Callable | None = None, resumable: bool = False, reasoning_ended: bool | None = None)',
    ]);
  });

  it('D4 FullAttentionSpec: kw_only=True on subclasses of a positional frozen base', async () => {
    const r = await check([
      'import torch', // 1
      'from lib.v1.kv_cache_interface import AttentionSpec, FullAttentionSpec', // 2
      'dt = torch.float16', // 3
      // 4: valid in 0.11/0.12, a TypeError in 0.16; each of these errors would be raised once the previous is fixed
      'FullAttentionSpec(16, 8, 128, dt)',
      'FullAttentionSpec(16, num_kv_heads=8, head_size=128, dtype=dt)', // 5 ok
      'FullAttentionSpec(block_size=16, num_kv_heads=8, head_size=128, dtype=dt, head_size_v=64)', // 6 ok
      'AttentionSpec(16, num_kv_heads=8, head_size=128, dtype=dt, sliding_window=4)', // 7 sliding_window is FullAttentionSpec's
    ]);
    expectFindings(r, [
      '4:too-many-positional:lib.v1.kv_cache_interface.FullAttentionSpec',
      '4:missing-argument:num_kv_heads',
      '7:unexpected-keyword:sliding_window',
    ]);
    // the missing arguments of one call are one finding, named as Python names them
    assert.match(r.findings.find((f) => f.code === 'missing-argument')!.message, /missing 3 required keyword-only arguments: 'num_kv_heads', 'head_size', and 'dtype'/);
    checkedLines(r, [5, 6]);
    assert.deepEqual(signaturesAt(r, 5), [
      'FullAttentionSpec(block_size: int, *, num_kv_heads: int, head_size: int, dtype: torch.dtype, page_size_padded: int | None = None, ' +
        'head_size_v: int = None, sliding_window: int | None = None, attention_chunk_size: int | None = None)',
    ]);
    assert.match(r.findings.find((f) => f.code === 'too-many-positional')!.message, /takes 1 positional argument but 4 were given/);
  });

  it('D5 NCCLWeightTransferUpdateInfo: a KW_ONLY sentinel in the base moves its fields last; `_` is no parameter', async () => {
    const r = await check([
      'from lib.distributed.weight_transfer.nccl_engine import NCCLWeightTransferUpdateInfo as Info', // 1
      'Info(["w"], ["f16"], [[1]])', // 2 ok: required fields after a defaulted base field are legal
      'Info(["w"], ["f16"], [[1]], True, 1, 2)', // 3 ok: six positional
      'Info(["w"], ["f16"], [[1]], True, 1, 2, False)', // 4 is_checkpoint_format is keyword-only
      'Info(["w"], ["f16"], [[1]], is_checkpoint_format=False)', // 5 ok
      'Info(["w"], ["f16"], [[1]], _=1)', // 6 the sentinel is no parameter
      'Info(["w"], ["f16"])', // 7 shapes missing
    ]);
    expectFindings(r, [
      '4:too-many-positional:lib.distributed.weight_transfer.nccl_engine.NCCLWeightTransferUpdateInfo',
      '6:unexpected-keyword:_',
      '7:missing-argument:shapes',
    ]);
    checkedLines(r, [2, 3, 5]);
    assert.deepEqual(signaturesAt(r, 2), [
      'NCCLWeightTransferUpdateInfo(names: list[str], dtype_names: list[str], shapes: list[list[int]], packed: bool = False, ' +
        'packed_buffer_size_bytes: int = DEFAULT_PACKED_BUFFER_SIZE_BYTES, packed_num_buffers: int = DEFAULT_PACKED_NUM_BUFFERS, ' +
        '*, is_checkpoint_format: bool = True)',
    ]);
  });

  it('D6 VideoDummyOptions: Field(999, ...) and Field(None, gt=0) are positional defaults; extra=forbid', async () => {
    const r = await check([
      'from lib.config.multimodal import BaseDummyOptions, ImageDummyOptions, VideoDummyOptions', // 1
      'VideoDummyOptions(count=1, num_frames=2)', // 2 ok (pyright: Arguments missing for "width", "height")
      'VideoDummyOptions()', // 3 ok
      'VideoDummyOptions(fps=2)', // 4 extra=forbid
      'VideoDummyOptions(1, 2, 3, 4, 5)', // 5 four fields
      'BaseDummyOptions(bogus=1)', // 6 ok: no config, extra="ignore"
      'ImageDummyOptions(num_frames=2)', // 7 a video-only field on the image options
    ]);
    expectFindings(r, ['4:unexpected-keyword:fps', '5:too-many-positional:lib.config.multimodal.VideoDummyOptions', '7:unexpected-keyword:num_frames']);
    checkedLines(r, [2, 3, 6]);
    assert.deepEqual(signaturesAt(r, 2), ['VideoDummyOptions(count: int = 999, num_frames: int | None = None, width: int | None = None, height: int | None = None)']);
  });

  it('D7 ChatCompletionRequest: BaseModel with extra="allow" and before/wrap validators reports positional arguments only', async () => {
    const r = await check([
      'from lib.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest', // 1
      'ChatCompletionRequest(my_extra_field=1)', // 2 ok: extra="allow" (pyright: No parameter named)
      'ChatCompletionRequest()', // 3 ok: a before/wrap validator may supply messages (pyright: Argument missing)
      'ChatCompletionRequest(messages=[], seed=1)', // 4 ok (pyright: Argument missing for "seed")
      'ChatCompletionRequest([])', // 5 BaseModel.__init__(self, /, **data)
      'ChatCompletionRequest(messages=[], _hidden=1)', // 6 ok: extra="allow"
    ]);
    expectFindings(r, ['5:too-many-positional:lib.entrypoints.openai.chat_completion.protocol.ChatCompletionRequest']);
    checkedLines(r, [2, 3, 4, 6]);
    // (self, /, **data): no positional parameter; fields may be listed as keyword-only, private `_hidden` never
    const [sig] = signaturesAt(r, 2);
    assert.match(sig, /^ChatCompletionRequest\((\*, [^/]*, )?\*\*\w+\)$/);
    assert.ok(!sig.includes('_hidden'), sig);
  });

  it('D8 StructuredOutputsParams: pydantic dataclass without config ignores unknown keywords', async () => {
    const r = await check([
      'from lib.sampling_params import StructuredOutputsParams as SOP', // 1
      'SOP(bogus=2)', // 2 ok: extra="ignore" (pyright flags it)
      'SOP(json="{}")', // 3 ok
      'SOP(_backend="x")', // 4 ok: init=False, and unknown keys are ignored anyway
      `SOP(${positionals(11)})`, // 5 ValidationError: ten fields
      'SOP("{}", json="{}")', // 6 ValidationError: multiple values
    ]);
    expectFindings(r, ['5:too-many-positional:lib.sampling_params.StructuredOutputsParams', '6:multiple-values:json']);
    checkedLines(r, [2, 3, 4]);
    assert.deepEqual(signaturesAt(r, 2), [
      'StructuredOutputsParams(json: str | dict | None = None, regex: str | None = None, choice: list[str] | None = None, ' +
        'grammar: str | None = None, json_object: bool | None = None, disable_fallback: bool = False, disable_any_whitespace: bool = False, ' +
        'disable_additional_properties: bool = False, whitespace_pattern: str | None = None, structural_tag: str | None = None)',
    ]);
  });

  it('D9 LlamaModel: @support_torch_compile replaces __init__ with a keyword-only wrapper', async () => {
    const r = await check([
      'from lib.model_executor.models.llama import LlamaDecoderLayer, LlamaModel', // 1
      'LlamaModel()', // 2 ok: the wrapper defaults vllm_config (pyright: missing vllm_config)
      'LlamaModel(vllm_config=cfg, prefix="model")', // 3 ok
      'LlamaModel(cfg)', // 4 a TypeError at runtime (keyword-only wrapper)
      'LlamaDecoderLayer(cfg)', // 5 ok: undecorated nn.Module subclass, checked
      'LlamaDecoderLayer()', // 6 missing vllm_config
    ]);
    // The engine does not model @support_torch_compile (SEMANTICS B15 would derive
    // `(*, vllm_config=None, prefix="", layer_type=...)`): the decorator is treated as one that
    // may replace the constructor, so LlamaModel(...) is UNKNOWN and the true positive on line 4
    // is not reported. Silence is asserted; if the engine learns the decorator, line 4 must
    // become a too-many-positional finding and lines 2-3 must stay silent.
    expectFindings(r, ['6:missing-argument:vllm_config']);
    for (const l of [2, 3, 4]) unknownAt(r, l);
    checkedAt(r, 5);
  });

  it('D10 BasevLLMParameter: __new__(cls, data, **kwargs) and __init__(self, data, weight_loader) must both bind', async () => {
    const r = await check([
      'from lib.model_executor.parameter import BasevLLMParameter, _ColumnvLLMParameter', // 1
      'BasevLLMParameter(data=t, weight_loader=f)', // 2 ok
      'BasevLLMParameter(t, weight_loader=f)', // 3 ok
      'BasevLLMParameter(t, f)', // 4 __new__ takes one positional (pyright agrees)
      'BasevLLMParameter(t)', // 5 __new__ binds, __init__ misses weight_loader
      '_ColumnvLLMParameter(output_dim=0, data=t, weight_loader=f)', // 6 ok
      '_ColumnvLLMParameter(0, data=t, weight_loader=f)', // 7 __new__(cls, data, **kwargs): 0 is `data` already
    ]);
    // torch.nn.Parameter comes after both owners in the MRO (SEMANTICS D10): the call is checkable.
    expectFindings(r, [
      '4:too-many-positional:lib.model_executor.parameter.BasevLLMParameter',
      '5:missing-argument:weight_loader',
      '7:multiple-values:data',
    ]);
    checkedLines(r, [2, 3, 6]);
    const [sig] = signaturesAt(r, 2);
    assert.deepEqual(sig.split(' and ').sort(), [
      'BasevLLMParameter(data: torch.Tensor | None, **kwargs)',
      'BasevLLMParameter(data: torch.Tensor, weight_loader: Callable)',
    ]);
  });

  it('D11 RMSNorm: a transparent (*args, **kwargs) __new__ and a registry decorator that returns the class', async () => {
    const r = await check([
      'from lib.model_executor.layers.layernorm import RMSNorm', // 1
      'RMSNorm(8)', // 2 ok
      'RMSNorm(8, eps=1e-5)', // 3 ok
      'RMSNorm()', // 4 missing hidden_size
      'RMSNorm(8, bogus=1)', // 5 unexpected
      'RMSNorm(8, enforce_enable=True)', // 6 CustomOp.__init__ is not reached: RMSNorm's own __init__ decides
      'RMSNorm(8, 1e-5, None, True, None)', // 7 ok: five positional
    ]);
    expectFindings(r, ['4:missing-argument:hidden_size', '5:unexpected-keyword:bogus', '6:unexpected-keyword:enforce_enable']);
    checkedLines(r, [2, 3, 7]);
    assert.deepEqual(signaturesAt(r, 2), [
      'RMSNorm(hidden_size: int, eps: float = 1e-6, var_hidden_size: int | None = None, has_weight: bool = True, dtype: torch.dtype | None = None)',
    ]);
  });

  it('D12 lazy package exports: MODULE_ATTRS with __getattr__ in the else branch of TYPE_CHECKING', async () => {
    const r = await check([
      'from lib import LLMEngine, SamplingParams, Foo', // 1 Foo: ImportError (the __getattr__ body is evaluable)
      'from lib import PoolingRequestOutput as PRO', // 2 ok
      'import lib', // 3
      'lib.Bogus', // 4 AttributeError
      'lib.SamplingParams(max_tokens=1)', // 5 ok
      'LLMEngine(cfg, Exec, True)', // 6 ok: lib.engine.llm_engine.LLMEngine = the v1 class
      'LLMEngine(cfg)', // 7 missing executor_class, log_stats
      'from lib.engine.llm_engine import LLMEngine as Direct', // 8 an alias `LLMEngine = V1LLMEngine`
      'Direct(cfg, Exec, log_stats=True)', // 9 ok
      'Direct(cfg, Exec)', // 10 missing log_stats
      'SamplingParams(bogus=1)', // 11 through the lazy table too
    ]);
    expectFindings(r, [
      '1:unknown-import:lib.Foo',
      '4:unknown-attribute:lib.Bogus',
      '7:missing-argument:executor_class',
      '10:missing-argument:log_stats',
      '11:unexpected-keyword:bogus',
    ]);
    checkedLines(r, [5, 6, 9]);
    assert.match(r.findings.find((f) => f.param === 'executor_class')!.message, /LLMEngine\(\) missing 2 required positional arguments: 'executor_class' and 'log_stats'\. Target signature/);
    for (const f of r.findings.filter((x) => x.param === 'log_stats')) {
      assert.equal(f.callee, 'lib.v1.engine.llm_engine.LLMEngine');
      assert.ok(f.definition?.file.endsWith(path.join('lib', 'v1', 'engine', 'llm_engine.py')), f.definition?.file);
    }
  });

  it('D13 deprecation __getattr__ shims: single-name test and a literal table', async () => {
    const r = await check([
      'from lib.transformers_utils.tokenizer import get_tokenizer', // 1 ok, a deprecated hint: served by __getattr__ with a warning
      'from lib.transformers_utils.tokenizer import cached_tokenizer_from_config', // 2 gone
      'from lib.utils import cdiv', // 3 gone since 0.12 (moved to math_utils, no shim)
      'from lib.utils import get_open_port, cprofile', // 4 ok: in _DEPRECATED_MAPPINGS
      'from lib.utils.math_utils import cdiv as cdiv2', // 5 ok
      'import lib.transformers_utils.tokenizer as tok', // 6
      'tok.get_tokenizer', // 7 works, with the same deprecated hint as the import
      'tok.cached_tokenizer_from_config', // 8 gone
      'cdiv2(1, 2)', // 9 ok
    ]);
    expectFindings(r, [
      '1:deprecated:lib.transformers_utils.tokenizer.get_tokenizer',
      '2:unknown-import:lib.transformers_utils.tokenizer.cached_tokenizer_from_config',
      '3:unknown-import:lib.utils.cdiv',
      '7:deprecated:lib.transformers_utils.tokenizer.get_tokenizer',
      '8:unknown-attribute:lib.transformers_utils.tokenizer.cached_tokenizer_from_config',
    ]);
    checkedAt(r, 9);
  });

  it('D14 `X = A if c else B` is any-of; an @overload group binds to the last def', async () => {
    const r = await check([
      'from lib.platforms.cuda import CudaPlatform', // 1
      'from lib.model_executor.models.interfaces import supports_multimodal', // 2
      'CudaPlatform(1)', // 3 ok for both
      'CudaPlatform(1, visible="0")', // 4 ok for NonNvmlCudaPlatform only: not reported
      'CudaPlatform()', // 5 fails for both
      'CudaPlatform(1, 2)', // 6 fails for both
      'CudaPlatform.get_device_name(0, fallback="x")', // 7 ok for one
      'CudaPlatform.get_device_name(0, bogus=1)', // 8 fails for both
      'CudaPlatform.get_device_name()', // 9 ok
      'supports_multimodal(m)', // 10 ok
      'supports_multimodal(m, strict=True)', // 11 matches an @overload, but the runtime def has no `strict`
      'supports_multimodal()', // 12 missing model
    ]);
    expectFindings(r, [
      '5:missing-argument:device_count',
      '6:too-many-positional:lib.platforms.cuda.NvmlCudaPlatform',
      '8:unexpected-keyword:bogus',
      '11:unexpected-keyword:strict',
      '12:missing-argument:model',
    ]);
    checkedLines(r, [3, 4, 7, 9, 10]);
    assert.deepEqual(signaturesAt(r, 3).sort(), ['NonNvmlCudaPlatform(device_count: int, *, visible: str = "")', 'NvmlCudaPlatform(device_count: int)']);
    assert.deepEqual(signaturesAt(r, 7).sort(), [
      'NonNvmlCudaPlatform.get_device_name(device_id: int = 0, *, fallback: str = "cuda")',
      'NvmlCudaPlatform.get_device_name(device_id: int = 0)',
    ]);
    assert.deepEqual(signaturesAt(r, 10), ['supports_multimodal(model: type[object] | object)']);
  });

  it('D15 PoolingRequestOutput(Generic[_O]): C[T](...) binds like C(...); subclasses inherit through a subscripted base', async () => {
    const r = await check([
      'from lib.outputs import EmbeddingOutput, EmbeddingRequestOutput, PoolingRequestOutput', // 1
      'PoolingRequestOutput(id, outs, ids, True)', // 2 TRUE POSITIVE: the 0.11 call misses `finished`
      'PoolingRequestOutput(id, outs, ids, 0, True)', // 3 ok
      'PoolingRequestOutput[EmbeddingOutput](id, outs, ids, 0, True)', // 4 ok
      'PoolingRequestOutput[EmbeddingOutput](id, outs, ids, True)', // 5 missing finished
      'EmbeddingRequestOutput(request_id=id, outputs=outs, prompt_token_ids=ids, num_cached_tokens=0, finished=True)', // 6 ok
      'EmbeddingRequestOutput(id, outs, ids, True)', // 7 missing finished
      'EmbeddingRequestOutput.from_base(out)', // 8 ok: staticmethod
    ]);
    expectFindings(r, ['2:missing-argument:finished', '5:missing-argument:finished', '7:missing-argument:finished']);
    checkedLines(r, [3, 4, 6, 8]);
    assert.deepEqual(signaturesAt(r, 3), [
      'PoolingRequestOutput(request_id: str, outputs: _O, prompt_token_ids: list[int], num_cached_tokens: int, finished: bool)',
    ]);
  });

  it('Bonus EngineCoreRequest: msgspec Struct with array_like=True and gc=False', async () => {
    const ten = '"r", [1], None, sp, None, 2, 0.0, None, None, None';
    const r = await check([
      'from lib.v1.engine import EngineCoreRequest', // 1
      `EngineCoreRequest(${ten})`, // 2 ok: ten required fields
      'EngineCoreRequest("r", [1], None, sp, None, 2, 0.0, None, None)', // 3 missing data_parallel_rank
      `EngineCoreRequest(${ten}, prompt_embeds=None, reasoning_ended=True)`, // 4 ok
      `EngineCoreRequest(${ten}, None, 0, 0, 0, None, False, None, None, 1)`, // 5 eighteen fields
      `EngineCoreRequest(${ten}, structured_output_request=None)`, // 6 unexpected
    ]);
    expectFindings(r, [
      '3:missing-argument:data_parallel_rank',
      '5:too-many-positional:lib.v1.engine.EngineCoreRequest',
      '6:unexpected-keyword:structured_output_request',
    ]);
    checkedLines(r, [2, 4]);
    assert.deepEqual(signaturesAt(r, 2), [
      'EngineCoreRequest(request_id: str, prompt_token_ids: list[int] | None, mm_features: list | None, ' +
        'sampling_params: SamplingParams | None, pooling_params: PoolingParams | None, eos_token_id: int | None, arrival_time: float, ' +
        'lora_request: object | None, cache_salt: str | None, data_parallel_rank: int | None, prompt_embeds: torch.Tensor | None = None, ' +
        'client_index: int = 0, current_wave: int = 0, priority: int = 0, trace_headers: Mapping[str, str] | None = None, ' +
        'resumable: bool = False, external_req_id: str | None = None, reasoning_ended: bool | None = None)',
    ]);
  });
});

describe('SEMANTICS B and A rules not covered by the D cases', () => {
  it('B9 namedtuple: functional defaults apply to the rightmost fields; a NamedTuple subclass adds no fields', async () => {
    const r = await check([
      'from lib.rules.tuples import Loose, Pair, PairPlus, Triple', // 1
      'Triple(1, 2)', // 2 ok: (a, b, c=9)
      'Triple(1)', // 3 missing b
      'Triple(1, 2, 3, 4)', // 4 three fields
      'Triple(a=1, b=2, c=3)', // 5 ok
      'Loose()', // 6 ok: every field has a default
      'Pair(1)', // 7 ok
      'PairPlus(1)', // 8 ok: still (a, b=2)
      'PairPlus(1, 2, 3)', // 9 `c: int = 3` in the subclass is no field
      'PairPlus(1, c=3)', // 10 same
    ]);
    // CPython names the inherited constructor `Pair.__new__`, so the callee of line 9 may be either class
    assert.deepEqual(
      r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? ''}`).sort(),
      ['10:unexpected-keyword:c', '3:missing-argument:b', '4:too-many-positional:', '9:too-many-positional:'],
    );
    checkedLines(r, [2, 5, 6, 7, 8]);
    // namedtuple("Triple", "a, b c", defaults=(9,)) gives (a, b, c=9), as inspect.signature shows
    assert.deepEqual(signaturesAt(r, 2), ['Triple(a, b, c=9)']);
    assert.deepEqual(signaturesAt(r, 6), ['Loose(a=1, b=2)']);
    assert.deepEqual(signaturesAt(r, 7), ['Pair(a: int, b: int = 2)']);
    assert.match(signaturesAt(r, 8)[0], /^(Pair|PairPlus)\(a: int, b: int = 2\)$/);
  });

  it('B11 Enum: E() is reported; E(value) and E(value=...) are lookups; member __init__ is not the signature', async () => {
    const r = await check([
      'from lib.rules.enums import Backend, Color, Level, Planet', // 1
      'from lib.sampling_params import RequestOutputKind', // 2
      'Color()', // 3 TypeError
      'Color(1)', // 4 ok
      'Color(value=1)', // 5 ok
      'Planet((3.3e23, 2.4e6))', // 6 ok: Planet.__init__(self, mass, radius) is for members
      'Planet()', // 7 TypeError
      'Level(0)', // 8 ok
      'Level()', // 9 TypeError
      'Backend("flash")', // 10 ok: an EnumMeta subclass without __call__
      'RequestOutputKind(0)', // 11 ok
      'RequestOutputKind(value=0)', // 12 ok
    ]);
    expectFindings(r, ['3:missing-argument:value', '7:missing-argument:value', '9:missing-argument:value']);
    for (const l of [4, 5, 6, 8, 11, 12]) checkedAt(r, l);
  });

  it('B5/B8 fields: a redefined field keeps its first position; kw_only applies to a class\'s own fields; a ClassVar re-annotation stays a msgspec field', async () => {
    const r = await check([
      'from lib.rules.fields import KwLeaf, Second, StructKw, StructLeaf, StructShadow', // 1
      'Second()', // 2 ok: x got a default in Second
      'Second(1, 2, 3)', // 3 ok: (x=5, y=0, z=1)
      'Second(1, 2, 3, 4)', // 4 three fields
      'KwLeaf(1, 3, b=2)', // 5 ok: only KwMid's b is keyword-only
      'KwLeaf(1, 2)', // 6 b is missing
      'StructKw(1, 2, c=3)', // 7 ok
      'StructKw(1, 2, 3)', // 8 c is keyword-only
      'StructLeaf(1, 2, 4, c=3)', // 9 ok: d is positional, kw_only is not inherited
      'StructShadow(1, 2)', // 10 ok: b: ClassVar[int] in a subclass does not remove the field (msgspec #1086)
      'StructShadow(1, b=2, e=3)', // 11 ok
      'StructShadow(1, 2, 3, 4)', // 12 three fields
    ]);
    expectFindings(r, [
      '4:too-many-positional:lib.rules.fields.Second',
      '6:missing-argument:b',
      '8:too-many-positional:lib.rules.fields.StructKw',
      '8:missing-argument:c',
      '12:too-many-positional:lib.rules.fields.StructShadow',
    ]);
    checkedLines(r, [2, 3, 5, 7, 9, 10, 11]);
    assert.deepEqual(signaturesAt(r, 2), ['Second(x: int = 5, y: int = 0, z: int = 1)']);
    assert.deepEqual(signaturesAt(r, 5), ['KwLeaf(a: int = 1, c: int = 3, *, b: int)']);
    assert.deepEqual(signaturesAt(r, 9), ['StructLeaf(a: int, b: int, d: int = 0, *, c: int)']);
    assert.deepEqual(signaturesAt(r, 10), ['StructShadow(a: int, b: ClassVar[int], e: int = 0)']);
  });

  it('B17 TYPE_CHECKING-only names do not exist; try/except ImportError and module-level if give any-of', async () => {
    const r = await check([
      'from lib.rules.conditional import accel, both, turbo', // 1
      'from lib.rules.conditional import Hidden', // 2 bound only under TYPE_CHECKING
      'from lib.rules.conditional import typing_only_helper', // 3 same (a def)
      'from lib import PoolingParams', // 4 ok: TYPE_CHECKING-only there, but __getattr__ serves it
      'accel(1, 2)', // 5 ok for the except-branch fallback
      'accel(1, mode="b")', // 6 ok for the imported one
      'accel()', // 7 fails for both
      'accel(1, 2, 3)', // 8 too many for both (1 and 2 positional parameters)
      'accel(1, z=1)', // 9 fails for both
      'turbo(1, 2, 3)', // 10 one alternative is outside the target: unknown
      'both(1)', // 11 ok
      'both(1, 2)', // 12 ok
      'both()', // 13 fails for both
      'both(1, 2, 3)', // 14 too many for both
      'from typing import TYPE_CHECKING', // 15
      'if TYPE_CHECKING:', // 16
      '    from lib.rules.conditional import NotThere', // 17 never runs
      'try:', // 18
      '    from lib.rules.conditional import AlsoNotThere', // 19 guarded
      'except ImportError:', // 20
      '    AlsoNotThere = None', // 21
    ]);
    expectFindings(r, [
      '2:unknown-import:lib.rules.conditional.Hidden',
      '3:unknown-import:lib.rules.conditional.typing_only_helper',
      '7:missing-argument:x',
      '8:too-many-positional:lib.rules._fast.accel',
      '9:unexpected-keyword:z',
      '13:missing-argument:a',
      '14:too-many-positional:lib.rules.conditional.both',
    ]);
    checkedLines(r, [5, 6, 11, 12]);
    assert.deepEqual(signaturesAt(r, 5).sort(), ['accel(x, *, mode: str = "a")', 'accel(x, y=0)']);
    assert.equal(callsAt(r, 10).filter((c) => !c.unknownReason).length, 0);
  });

  it('A5 functools.partial: positional arguments are prepended; keywords are overridable defaults', async () => {
    const r = await check([
      'from functools import partial', // 1
      'from lib.model_executor.layers.layernorm import RMSNorm', // 2
      'from lib.model_executor.models.whisper_causal import CausalRMSNorm', // 3 partial(RMSNorm, eps=1e-5)
      'CausalRMSNorm(8)', // 4 ok
      'CausalRMSNorm(8, eps=1e-6)', // 5 ok: a call keyword overrides the partial's
      'CausalRMSNorm()', // 6 missing hidden_size
      'CausalRMSNorm(8, 1e-6)', // 7 the second positional is eps, which the partial also passes by keyword
      'CausalRMSNorm(8, bogus=1)', // 8 unexpected
      'Fixed = partial(RMSNorm, 8)', // 9
      'Fixed()', // 10 ok
      'Fixed(1e-5, None, True, None)', // 11 ok
      'Fixed(1e-5, None, True, None, 5)', // 12 too many
      'Fixed(hidden_size=8)', // 13 hidden_size is already the partial's 8
    ]);
    expectFindings(r, [
      '6:missing-argument:hidden_size',
      '7:multiple-values:eps',
      '8:unexpected-keyword:bogus',
      '12:too-many-positional:lib.model_executor.layers.layernorm.RMSNorm',
      '13:multiple-values:hidden_size',
    ]);
    checkedLines(r, [4, 5, 10, 11]);
    // SEMANTICS D11: CausalRMSNorm gives (hidden_size, eps=1e-5, ...)
    const [sig] = signaturesAt(r, 4);
    assert.ok(sig.startsWith('RMSNorm(hidden_size: int, '), sig);
    assert.ok(sig.includes('eps: float = 1e-5'), sig);
  });

  it('UNKNOWN: TypedDict calls, unseen bases, unknown decorators and metaclasses, cls(...), module instance calls', async () => {
    const r = await check([
      'from lib.rules.unknowns import ConfigLike, Factory, Forwarded, Hooked, Metered, Opaque, PromptDict, Registered, TotalFalse, UnseenFirst', // 1
      'PromptDict(bogus=1)', // 2 a TypedDict call is dict(...)
      'PromptDict()', // 3
      'TotalFalse(prompt_token_ids=[1], other=2)', // 4
      'UnseenFirst(max_tokens=1)', // 5 an unresolvable base first
      'ConfigLike(1, 2, x=3)', // 6 torch.nn.Embedding's __init__ decides, unseen
      'Hooked()', // 7 a class decorator that returns something else
      'Registered()', // 8 an unresolvable class decorator
      'Metered(1)', // 9 runs: the metaclass __call__ supplies b itself
      'Opaque()', // 10 an unresolvable metaclass
      'Forwarded(1, 2)', // 11 ok
      'class Mine(Factory):', // 12
      '    @classmethod', // 13
      '    def build(cls):', // 14
      '        return cls(1, 2, 3)', // 15 cls may be any subclass
      '    def again(self):', // 16
      '        return type(self)(bogus=1)', // 17
      '    def third(self):', // 18
      '        return self.__class__()', // 19
      'from lib.model_executor.layers.layernorm import RMSNorm', // 20
      'norm = RMSNorm(8)', // 21
      'norm(1, 2, 3, 4, 5)', // 22 nn.Module.__call__ goes through hooks
      'Factory.make(1)', // 23 ok
      'Factory.make()', // 24 the module is checked at all
      'PromptDict(**{"bogus": 1})', // 25
    ]);
    expectFindings(r, ['24:missing-argument:size']);
    for (const l of [2, 3, 4, 5, 6, 7, 8, 9, 10, 25]) unknownAt(r, l);
    for (const l of [15, 17, 19, 22]) unknownAt(r, l, false);
    checkedLines(r, [21, 23]);
  });
});
