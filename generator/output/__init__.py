"""Where builds put their outputs: in memory, or an output folder that is switched in whole and only ever holds
what ledgerpress wrote (besides what its owner put there)."""
