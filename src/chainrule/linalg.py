"""`chainrule.linalg`: linear algebra with gradients (PyTorch's torch.linalg)."""

__all__: list[str] = []
