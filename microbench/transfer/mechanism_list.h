// Every transfer mechanism, one registration line each, in the order presets, the CSV and
// figures list them. Each line names a function `const Mechanism& NAME_mechanism()` that
// the mechanism's own file defines.
PK_TRANSFER_MECHANISM(copy_engine)
PK_TRANSFER_MECHANISM(copy_engine_batch)
PK_TRANSFER_MECHANISM(copy_engine_2d)
PK_TRANSFER_MECHANISM(tma_bulk)
PK_TRANSFER_MECHANISM(tma_tile)
PK_TRANSFER_MECHANISM(register)
PK_TRANSFER_MECHANISM(register_l2hint)
