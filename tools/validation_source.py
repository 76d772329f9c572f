"""The source key of a validation row: which published document it came from. Error bands are
computed leaving a row's own source out (core/src/evidence/accuracy.cpp, whose source_key() follows
the same rule), so rows measured together (one harness, one software stack, one lab's cluster)
never vouch for each other.

The key is the repository's name, a slash, and the document: the cited file's stem, or its folder
for a README. "NVIDIA/DeepLearningExamples@729963dd PyTorch/LanguageModeling/BERT/README.md (...)"
is "DeepLearningExamples/BERT"; "mosaicml/llm-foundry@8c8dd48f7216 scripts/train/benchmarking/
README.md" is "llm-foundry/benchmarking". Forks of a repository share its name, so they count as
one source; a web page is its host ("blog.mlc.ai").
"""
import re


def source_key(citation):
    head, _, rest = citation.strip().partition(" ")
    if head.startswith(("https://", "http://")):
        return head.split("//", 1)[1].split("/", 1)[0]
    repo = head.split("@", 1)[0].split("/")[-1]
    path = next((t for t in re.split(r"[ ,]", rest)
                 if "." in t and "(" not in t and ("/" in t or t.startswith("README"))), "")
    if not path:
        return repo
    folder, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    if stem.lower() == "readme":
        return repo + "/" + folder.rsplit("/", 1)[-1] if folder else repo
    return repo + "/" + stem
