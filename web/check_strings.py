#!/usr/bin/env python3
"""Checks the page's string table and that the UI code takes its text from it.

1. web/model/strings.inc: every entry has an English and a Chinese text with the same printf
   placeholders in the same order, and ids are unique.
2. The UI code (web/ui/ui_*.cpp, widgets.cpp, charts.cpp, app.cpp) has no prose string literal:
   a literal with two words, or a capitalised word, that is not a technical token below.
3. Each note_* entry's English is a note the core writes (core/src), so its translation is used.
4. No Chinese text has English left in it: every Latin-script word of a Chinese text is a name or
   a unit of ZH_LATIN, or code (a --flag and its value, a 'quoted' command, a word with a digit,
   '_', '.' or '/', a placeholder).
Exit 0 when clean; otherwise one line per problem and exit 1.

`check_strings.py --shown FILE` applies check 4 to what the Chinese page showed instead: FILE
holds one text per line (a note or message with its values filled in, as tests/web's
zh_shown_dump prints them); each line with English prose is a problem.
"""
import pathlib
import re
import sys

WEB = pathlib.Path(__file__).resolve().parent
TABLE = WEB / "model" / "strings.inc"
UI = WEB / "ui"
ENTRY = re.compile(r'^X\((\w+),\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"\)\s*$')
PLACEHOLDER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:ll|l|z)?[diouxXeEfgGsc%]")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# Units, precisions and names that are the same in every language.
TECHNICAL = {"GEMM ", "TFLOPS", "GB/s", "USD", "W", "GPU", "CNY"}


# The Latin-script words a Chinese text may hold: names (products, formats, methods), units and
# abbreviations that Chinese technical writing keeps in Latin, and code a user types or reads as
# is (enum values shown in combos, JSON fields). Add a word here only if it is one of those.
ZH_LATIN = {
    # names: products, frameworks, formats, standards, companies
    "gpuplan", "gpuplan-probe", "gpuplan-measure", "PyTorch", "Megatron-Core", "Megatron-LM",
    "Transformer", "transformers",
    "CUDA", "NVLink", "JSON", "CSV", "RFC", "English", "Adafactor", "SwiGLU", "deepspeed",
    "hostfile", "Megatron", "TE", "Engine", "cuDNN", "Hopper", "Triton", "FlashAttention", "MPT",
    "BERT", "MLM", "DeepEP", "HybridEP", "NCCL", "ShareGPT", "EAGLE", "MTP", "Adam", "LayerNorm", "Linear",
    "GEMM", "Transformer-XL", "NVIDIA", "AMD", "Blackwell", "FusedAdam", "MX", "llm-foundry",
    "SQuAD", "Mamba", "Nemotron-H", "LatentMoE", "Hugging", "Face",
    # methods and their abbreviations
    "LoRA", "QLoRA", "ZeRO", "FSDP", "HSDP", "MoE", "MLA", "SDPA", "FFN", "MLP", "CNN", "KV", "TP", "NCHW",
    "tp", "pp", "ep", "etp", "dp", "cp", "sp",  # parallel degrees, as the link keys name them
    "all-to-all", "all-reduce", "all-gather", "channels-last",
    # terms Chinese ML writing keeps in Latin
    "dropout", "softmax", "logits", "logit", "sink", "rank", "ring", "dense", "tanh",
    "userbuffers", "Q", "K", "V", "n",
    # units and metrics
    "GPU", "vCPU", "CPU", "PCIe", "DALI", "GB", "TB", "MB", "TFLOPS", "MFU", "TTFT", "TPOT", "TDP", "HBM", "USD", "CNY", "token",
    "SLO", "KiB",
    "Token",
    # one-letter symbols: multiplication, k-th, N, M, p (percentile), E (a layer pattern's MoE)
    "x", "k", "N", "M", "p", "E",
    # code shown as is: combo values, JSON fields and types, loop kinds
    "eager", "flash", "draft", "eagle", "mtp", "mixed", "full", "foreach", "for", "true", "false",
    "double", "id", "schema", "payload", "payloadType", "keyid", "sig", "NaN", "Infinity", "null",
    "base64", "alg", "signatures", "auto", "for-loop", "every-k-layers", "flat", "business-hours",
    "diurnal", "cudnn", "triton", "seq", "c-ffn", "c-moe-ffn", "resnet", "vgg", "fixed",
    "sharegpt", "adam", "adamw",
    # serving runtimes, and their combo values
    "vLLM", "SGLang", "vllm", "sglang", "trtllm", "hf", "llamacpp",
}
ZH_CODE = re.compile(r"--[\w-]+(?: [\w.*{}-]+)?|'[^']*'|\{\d+\}|#|gpuplan [a-z]+|[\w-]+-\*")
LATIN_WORD = re.compile(r"[A-Za-z][\w.\-/]*[\w]|[A-Za-z]")


def zh_latin_words(zh):
    """The Latin-script words of a Chinese text that are neither allowed names nor code."""
    text = ZH_CODE.sub(" ", PLACEHOLDER.sub(" ", zh))
    words = []
    for w in LATIN_WORD.findall(text):
        if w in ZH_LATIN or re.search(r"[\d_./]", w):
            continue
        words.append(w)
    return words


def check_table(problems):
    ids = set()
    for n, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("X("):
            continue
        m = ENTRY.match(line)
        if not m:
            problems.append(f"strings.inc:{n}: not X(id, \"English\", \"Chinese\")")
            continue
        sid, en, zh = m.groups()
        if sid in ids:
            problems.append(f"strings.inc:{n}: id {sid} twice")
        ids.add(sid)
        if not en or not zh:
            problems.append(f"strings.inc:{n}: {sid} has an empty text")
        for w in zh_latin_words(zh):
            problems.append(f"strings.inc:{n}: {sid}: English word \"{w}\" in the Chinese text "
                            "(translate it, or add a name or unit to ZH_LATIN)")
        if PLACEHOLDER.findall(en) != PLACEHOLDER.findall(zh):
            problems.append(f"strings.inc:{n}: {sid}: placeholders differ: {PLACEHOLDER.findall(en)} vs "
                            f"{PLACEHOLDER.findall(zh)}")


# Other Chinese texts the page shows: the key table's help_zh (tooltips) and the page's own keys.
ZH_SOURCES = [WEB.parent / "core" / "src" / "query" / "keys.cpp", WEB / "model" / "page_state.cpp"]
CJK = re.compile(r"[\u4e00-\u9fff]")


def check_zh_sources(problems):
    for path in ZH_SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for lit in LITERAL.findall(line.split("//")[0]):
                if CJK.search(lit):
                    for w in zh_latin_words(lit):
                        problems.append(f"{path.name}:{n}: English word \"{w}\" in the Chinese text "
                                        f"\"{lit}\" (translate it, or add a name or unit to ZH_LATIN)")


CORE_SRC = WEB.parent / "core" / "src"
ADJACENT = re.compile(r'"\s*\n\s*"')


NOTE_VALUE = re.compile(r"\{\d+\}")


def check_core_notes(problems):
    """A note_* entry translates a note of the core by its English text: that text must still be
    one the core writes (adjacent string literals joined), or the page would show the English.
    An entry with {0}, {1}, ... (the values the core writes in) is checked by its fixed parts,
    each of which the core's source must hold."""
    core = "".join(ADJACENT.sub("", f.read_text(encoding="utf-8")) for f in CORE_SRC.rglob("*.cpp"))
    for n, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), 1):
        m = ENTRY.match(line)
        if not m or not m.group(1).startswith("note_"):
            continue
        en = m.group(2)
        parts = NOTE_VALUE.split(en)
        if len(parts) == 1:
            missing = [en] if f'"{en}"' not in core else []
        else:
            missing = [p for p in parts if p.strip() and p.strip() not in core]
        for part in missing:
            problems.append(f"strings.inc:{n}: {m.group(1)}: the core writes no note \"{part}\"")


def check_checker(problems):
    """The zh check must flag English prose and pass names, units and code (or it proves nothing)."""
    if zh_latin_words("日期 unknown，retrieved %s") != ["unknown", "retrieved"]:
        problems.append("check_strings.py: the Chinese-text check no longer flags English prose")
    if zh_latin_words("每 GPU %s 个 token（--mode train，'gpuplan models'，h100-sxm5-80gb）"):
        problems.append("check_strings.py: the Chinese-text check flags names, units or code")


def is_prose(text):
    if text in TECHNICAL or text.startswith("#") or "##" in text:
        return False
    if re.fullmatch(r'[\w\-./\\"]+', text):  # identifiers: widget names, ids, JSON keys
        return False
    words = re.findall(r"[A-Za-z]{2,}", text)
    return len(words) >= 2 or any(w[0].isupper() and w[1:].islower() for w in words)


def check_ui(problems):
    files = sorted(UI.glob("ui_*.cpp")) + [UI / f for f in ("widgets.cpp", "charts.cpp", "charts_lines.cpp", "app.cpp")]
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if code.lstrip().startswith("#include"):
                continue
            for lit in LITERAL.findall(code):
                if is_prose(lit):
                    problems.append(f"{path.name}:{n}: text \"{lit}\" belongs in strings.inc")


def check_shown(path):
    """What the Chinese page showed (one text per line): English prose left in it."""
    problems = []
    for n, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        words = zh_latin_words(line)
        if words or (line.strip() and not CJK.search(line)):
            problems.append(f"{path}:{n}: English on the Chinese page {words}: {line}")
    return problems


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--shown":
        problems = check_shown(sys.argv[2])
    else:
        problems = []
        check_checker(problems)
        check_table(problems)
        check_zh_sources(problems)
        check_core_notes(problems)
        check_ui(problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
