"""`chainrule.special`: special functions with gradients (PyTorch's torch.special)."""

__all__: list[str] = []
