// Every style of the primitives study, one line each. A line PK_PRIM_STYLE(NAME, RUNNER)
// registers the style whose rows' `style` column is NAME (primitives_schema.h), measured by
// RUNNER(Context&, const Spec&), which its file style_*.cu defines (a library's style has a
// stand-in that skips in builds without the library); primitives_catalogue.cu lists its points.
PK_PRIM_STYLE(kStylePk, run_pk)
PK_PRIM_STYLE(kStyleEmulation, run_emulation)
PK_PRIM_STYLE(kStyleNcclDev, run_nccl)
PK_PRIM_STYLE(kStyleNvshmem, run_nvshmem)
