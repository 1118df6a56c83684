"""Test helper: NumPy values put into a View in the memory of a back end (the `space` fixture's),
as the view tests on every back end need them."""
import numpy as np

import porta


def device_view(space, a, layout, label=""):
    """A view in the memory of `space`'s back end, holding NumPy array `a`."""
    v = porta.View(a.shape, a.dtype, space=space.mem, layout=layout, label=label)
    h = porta.create_mirror_view(v)
    np.asarray(h)[...] = a
    if h is not v:
        porta.deep_copy(v, h)
    return v
