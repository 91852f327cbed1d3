#!/usr/bin/env python3
"""
Runs a Fairground batch plan on a Ray cluster with vLLM (ray.data.llm), including what vLLM's
run-batch cannot run: plain-prompt generation and teacher-forced scoring (MoI, the NLI judge when
it scores), through vLLM's prompt log-probabilities.

Input: the lines `fairground plan export SPEC --format openai-batch-completions -o requests.jsonl`
writes (/v1/completions with a raw prompt, /v1/chat/completions with messages). Output: one line per
request in vLLM run-batch's output format ({"id", "custom_id", "response": {"status_code",
"request_id", "body"}, "error"}), with OpenAI completion/chat bodies shaped as `vllm serve` answers
them (echoed prompt tokens, their log-probabilities and text offsets for scoring), which
`fairground cache import results.jsonl` checks against their requests and stores.

    python3 fairground_ray_batch.py --input requests.jsonl --output results.jsonl \\
        --model-source meta-llama/Llama-3.1-8B-Instruct --concurrency 4 --batch-size 64

`--model-source` is what vLLM loads; the bodies name the requests' `model` (the name the model was
added under in Fairground), so use the same weights that name stands for. Every line whose fields
this script cannot hand to vLLM unchanged is refused before anything runs (exit 2, naming the line).

Written against ray-project/ray@02fd5f0bfa7762858756e987df88b88c1f9cb391 (python/ray/data/llm.py:
vLLMEngineProcessorConfig, build_processor) and the engine stage's output columns at
ray-project/ray@005f0eb222c74209d971363fa77d8123211e2eb0
(python/ray/llm/_internal/batch/stages/vllm_engine_stage.py: prompt, prompt_token_ids,
generated_tokens, generated_text, num_generated_tokens, logprobs, prompt_logprobs). Ray and vLLM
are imported only when the plan is run, so `--rows` (engine output rows from a file instead of Ray)
works without them: that is how the tests check the input and output formats.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional

# Body fields of an exported line and where they go in vLLM's SamplingParams.
SAMPLING_FIELDS = {
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "seed": "seed",
    "stop": "stop",
    "repetition_penalty": "repetition_penalty",
}
PASSED_FIELDS = {"model", "prompt", "messages", "echo", "logprobs"}
SCHEMA_FIELDS = {"response_format", "guided_json", "structured_outputs"}


class LineError(Exception):
    """A request line this script cannot run unchanged."""


def read_requests(lines: Iterable[str], name: str) -> List[Dict[str, Any]]:
    requests = []
    seen = set()
    for number, text in enumerate(lines, start=1):
        if text.strip() == "":
            continue
        where = f"{name}:{number}"
        try:
            line = json.loads(text)
        except json.JSONDecodeError as error:
            raise LineError(f"{where}: not JSON ({error.msg})") from None
        custom_id = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(custom_id, str) or custom_id == "":
            raise LineError(f"{where}: no custom_id")
        if custom_id in seen:
            raise LineError(f"{where}: custom_id {custom_id!r} appears twice")
        seen.add(custom_id)
        line["_where"] = where
        line["_row"] = to_engine_row(line, where)
        requests.append(line)
    return requests


def json_schema_of(body: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if "guided_json" in body:
        return body["guided_json"]
    if "structured_outputs" in body:
        outputs = body["structured_outputs"]
        if not isinstance(outputs, dict) or set(outputs) != {"json"}:
            raise LineError("structured_outputs other than {json: schema}")
        return outputs["json"]
    if "response_format" in body:
        fmt = body["response_format"]
        if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
            raise LineError("response_format other than json_schema")
        return fmt["json_schema"]["schema"]
    return None


def to_engine_row(line: Dict[str, Any], where: str) -> Dict[str, Any]:
    """The ray.data.llm input row of one request line (chat rows go through the chat template)."""
    if line.get("method", "POST") != "POST":
        raise LineError(f"{where}: method {line.get('method')!r} (only POST)")
    url = line.get("url")
    body = line.get("body")
    if not isinstance(body, dict):
        raise LineError(f"{where}: no body")
    if url not in ("/v1/completions", "/v1/chat/completions"):
        raise LineError(f"{where}: url {url!r}: this script runs /v1/completions and /v1/chat/completions lines (embeddings: use vllm run-batch)")
    unknown = sorted(set(body) - set(SAMPLING_FIELDS) - PASSED_FIELDS - SCHEMA_FIELDS)
    if unknown:
        raise LineError(f"{where}: fields this script cannot hand to vLLM unchanged: {', '.join(unknown)}")
    sampling: Dict[str, Any] = {SAMPLING_FIELDS[k]: v for k, v in body.items() if k in SAMPLING_FIELDS}
    try:
        schema = json_schema_of(body)
    except LineError as error:
        raise LineError(f"{where}: {error}") from None
    if schema is not None:
        sampling["guided_decoding"] = {"json": schema}
    if "stop" in sampling:
        # Kept in the text so that the stop string that ended generation can be named (vLLM's
        # stop_reason, which the engine rows do not carry); cut again in to_body.
        sampling["include_stop_str_in_output"] = True
    if url == "/v1/completions":
        if not isinstance(body.get("prompt"), str):
            raise LineError(f"{where}: the prompt must be text (token-id prompts are for llama.cpp's server)")
        if body.get("echo"):
            # Teacher-forced scoring: the prompt's tokens with their log-probabilities.
            sampling["prompt_logprobs"] = int(body.get("logprobs") or 0)
            sampling["logprobs"] = int(body.get("logprobs") or 0)
        elif body.get("logprobs") is not None:
            sampling["logprobs"] = int(body["logprobs"])
        return {"custom_id": line["custom_id"], "chat": False, "prompt": body["prompt"], "sampling_params": sampling}
    if url == "/v1/chat/completions":
        if body.get("echo"):
            raise LineError(f"{where}: echo on a chat line")
        if not isinstance(body.get("messages"), list):
            raise LineError(f"{where}: no messages")
        return {"custom_id": line["custom_id"], "chat": True, "messages": body["messages"], "sampling_params": sampling}
    raise AssertionError(url)


def _entry(step: Optional[Dict[Any, Any]], token_id: int) -> Optional[Dict[str, Any]]:
    """A token's entry in a log-probability dict (keys are ids, as ints or, through Arrow, strings)."""
    if step is None:
        return None
    return step.get(token_id, step.get(str(token_id)))


def _logprob_tokens(token_ids: List[int], steps: List[Optional[Dict[Any, Any]]], decode: Callable[[int], str]) -> Dict[str, List[Any]]:
    """As vLLM's completions API writes echoed logprobs: decoded tokens, logprobs (None first), offsets."""
    tokens: List[str] = []
    logprobs: List[Optional[float]] = []
    offsets: List[int] = []
    at = 0
    for i, token_id in enumerate(token_ids):
        entry = _entry(steps[i] if i < len(steps) else None, token_id)
        text = entry.get("decoded_token") if entry else None
        if text is None:
            text = decode(token_id)
        tokens.append(text)
        logprobs.append(None if entry is None else max(float(entry["logprob"]), -9999.0))
        offsets.append(at)
        at += len(text)
    return {"tokens": tokens, "token_logprobs": logprobs, "text_offset": offsets}


def to_body(line: Dict[str, Any], out: Dict[str, Any], decode: Callable[[int], str]) -> Dict[str, Any]:
    """The OpenAI response body `vllm serve` would have sent for this line, from the engine's row."""
    row = line["_row"]
    body = line["body"]
    sampling = row["sampling_params"]
    text = out.get("generated_text") or ""
    generated = list(out.get("generated_tokens") or [])
    finish, stop_reason = "stop", None
    for stop in sampling.get("stop") or []:
        if text.endswith(stop):
            text, stop_reason = text[: len(text) - len(stop)], stop
            break
    if stop_reason is None and len(generated) >= int(sampling.get("max_tokens") or 16):
        finish = "length"
    prompt_tokens = len(out.get("prompt_token_ids") or [])
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(generated), "total_tokens": prompt_tokens + len(generated)}
    common = {"id": f"cmpl-{line['custom_id']}", "created": 0, "model": body.get("model"), "usage": usage}
    if row["chat"]:
        choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish, "stop_reason": stop_reason, "logprobs": None}
        return {**common, "object": "chat.completion", "choices": [choice]}
    logprobs = None
    if body.get("echo"):
        prompt_ids = list(out.get("prompt_token_ids") or [])
        steps = list(out.get("prompt_logprobs") or [None] * len(prompt_ids)) + list(out.get("logprobs") or [])
        logprobs = _logprob_tokens(prompt_ids + generated, steps, decode)
        text = body["prompt"] + text
    elif body.get("logprobs") is not None:
        logprobs = _logprob_tokens(generated, list(out.get("logprobs") or []), decode)
    choice = {"index": 0, "text": text, "logprobs": logprobs, "finish_reason": finish, "stop_reason": stop_reason}
    return {**common, "object": "text_completion", "choices": [choice]}


def result_line(line: Dict[str, Any], out: Optional[Dict[str, Any]], decode: Callable[[int], str], error: Optional[str] = None) -> Dict[str, Any]:
    """One line of run-batch's output format."""
    custom_id = line["custom_id"]
    if out is None or error is not None:
        return {"id": f"fg-ray-{custom_id}", "custom_id": custom_id, "response": None, "error": {"message": error or "no output"}}
    response = {"status_code": 200, "request_id": f"fg-ray-{custom_id}", "body": to_body(line, out, decode)}
    return {"id": f"fg-ray-{custom_id}", "custom_id": custom_id, "response": response, "error": None}


def run_on_ray(requests: List[Dict[str, Any]], args: argparse.Namespace) -> Iterable[Dict[str, Any]]:
    """Engine output rows (keyed by custom_id) from ray.data.llm with vLLM; raw and chat rows apart."""
    import ray  # noqa: PLC0415 (imported only when the plan runs)
    from ray.data import llm as ray_llm  # noqa: PLC0415

    build = getattr(ray_llm, "build_processor", None) or ray_llm.build_llm_processor
    engine_kwargs = json.loads(args.engine_kwargs) if args.engine_kwargs else {}
    for chat in (False, True):
        rows = [dict(r["_row"]) for r in requests if r["_row"]["chat"] == chat]
        if not rows:
            continue
        config = ray_llm.vLLMEngineProcessorConfig(
            model_source=args.model_source,
            engine_kwargs=engine_kwargs,
            concurrency=args.concurrency,
            batch_size=args.batch_size,
            # Raw prompts reach the model exactly as written (no chat template); chat rows get it.
            chat_template_stage=chat,
        )
        keep = ("custom_id", "prompt", "prompt_token_ids", "generated_text", "generated_tokens", "num_generated_tokens", "logprobs", "prompt_logprobs")
        processor = build(
            config,
            preprocess=lambda row: {k: v for k, v in row.items() if k != "chat"},
            postprocess=lambda row: {k: row.get(k) for k in keep},
        )
        for out in processor(ray.data.from_items(rows)).iter_rows():
            yield out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True, help="plan export --format openai-batch-completions output")
    parser.add_argument("--output", required=True, help="results in vLLM run-batch's output format, for fairground cache import")
    parser.add_argument("--model-source", help="what vLLM loads (a Hugging Face id or a path)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--engine-kwargs", help="JSON object of vLLM engine arguments")
    parser.add_argument("--tokenizer", help="tokenizer for tokens vLLM did not decode (default: --model-source)")
    parser.add_argument("--rows", help="engine output rows (JSONL) instead of running Ray: checks the formats without a cluster")
    parser.add_argument("--check", action="store_true", help="only check the request lines and print the engine rows")
    args = parser.parse_args(argv)

    try:
        with open(args.input, encoding="utf-8") as handle:
            requests = read_requests(handle, args.input)
    except LineError as error:
        print(f"fairground_ray_batch: {error}", file=sys.stderr)
        return 2
    if args.check:
        for r in requests:
            print(json.dumps(r["_row"], ensure_ascii=False))
        return 0

    decode: Callable[[int], str]
    if args.rows:
        with open(args.rows, encoding="utf-8") as handle:
            outputs = [json.loads(t) for t in handle if t.strip()]
        vocab = {}
        for out in outputs:
            vocab.update({int(k): v for k, v in (out.get("vocab") or {}).items()})
        decode = lambda token_id: vocab[token_id]  # noqa: E731
    else:
        if not args.model_source:
            print("fairground_ray_batch: --model-source is needed to run the plan", file=sys.stderr)
            return 2
        from transformers import AutoTokenizer  # noqa: PLC0415

        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer or args.model_source)
        decode = lambda token_id: tokenizer.decode([token_id])  # noqa: E731
        outputs = run_on_ray(requests, args)

    by_id = {}
    for out in outputs:
        by_id[out["custom_id"]] = out
    missing = 0
    with open(args.output + ".partial", "w", encoding="utf-8") as handle:
        for line in requests:
            out = by_id.get(line["custom_id"])
            missing += out is None
            handle.write(json.dumps(result_line(line, out, decode), ensure_ascii=False) + "\n")
    import os  # noqa: PLC0415

    os.replace(args.output + ".partial", args.output)
    print(f"fairground_ray_batch: {len(requests) - missing} answered, {missing} without output -> {args.output}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
