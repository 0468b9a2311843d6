"""The backward pass on Tensors: the engine that runs the graph, and the tensors nodes save for it.

Sits on `chainrule._tensor` and below the ops (see the Layers section of `chainrule._autograd`).
"""
