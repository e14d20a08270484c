"""Facts and computations every stage of the data path shares (pure modules: no Django import)."""
