"""The autograd pieces Tensor is built on: grad modes, anomaly recording, node and hook types,
and forward-mode tangent storage. Nothing here imports Tensor (type hints aside).

Layers
------
chainrule is layered; a module imports only from its own layer or the ones below,
at the top of the file (imports point downward only):

1. Below Tensor: this package (`grad_mode`, `anomaly_mode`, `hooks`, `node`,
   `tangents`), and `_dtype`, `_size`, `_printing`, `_dims`. They never import
   `chainrule._tensor` or anything above it.
2. Tensor: `chainrule._tensor` (a NumPy array plus autograd state; no ops).
3. On Tensor: `chainrule._backward` (the engine, saved tensors), `_creation`,
   `return_types`, and the ops in `chainrule._ops`, which attach themselves to
   Tensor as methods.
4. The public autograd API: `chainrule.autograd` (`backward`, `grad`, custom
   `Function`s, `functional`, `gradcheck`, `forward_ad`, and the public homes of
   the modules below, which re-export them). Above it: `nn`, `linalg`,
   `special`, `utils`, `viz`, and the package root.

A method of a lower class that needs a higher layer is bound by that layer, in one
place: `Tensor.__new__` (the legacy constructor) in `chainrule._creation`, and
`Tensor.backward` and `Node.__call__` in `chainrule.autograd`. An import inside a
function is the rare exception and says why on the line above it;
`tests/test_layers.py` checks all of this.
"""
