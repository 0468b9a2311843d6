"""Every differentiable op: a forward on arrays and one derivative rule per input."""
