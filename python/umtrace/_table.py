"""Result containers: numpy structured arrays and dicts of columns that
convert to pandas DataFrames (pandas is optional: only to_pandas() needs it)."""
import numpy as np


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas)") \
            from e
    return pandas


def _column(values):
    """A numpy field as a pandas column: sub-arrays of bytes become bytes."""
    if values.ndim == 1:
        return values
    if values.dtype == np.uint8:
        return [bytes(v) for v in values.reshape(len(values), -1)]
    return list(values)


class Table(np.ndarray):
    """A numpy structured array (a view over the trace's mapping, or a result
    of a query) with ``to_pandas()``. Indexing, slicing and numpy functions
    work as on any structured array."""

    def __new__(cls, array):
        return np.asarray(array).view(cls)

    def to_pandas(self):
        """The rows as a pandas DataFrame, one column per field (copied)."""
        pd = _pandas()
        a = self.view(np.ndarray)
        return pd.DataFrame({n: _column(a[n]) for n in a.dtype.names})


class Columns(dict):
    """Columns of records: field name -> numpy array, all of one length, row
    i for record ``ids[i]`` (``start + i`` for Trace.columns()). Plain dict
    access: ``cols["mnemonic"]``."""

    @property
    def nrows(self):
        """Rows of every column (len() is the number of columns, as for any dict)."""
        return len(next(iter(self.values()))) if self else 0

    def to_pandas(self):
        """The columns as a pandas DataFrame (each column copied once)."""
        return _pandas().DataFrame(dict(self))
