// Every variant source of the sync study, one line each, in the order their points run. A line
// PK_SYNC_VARIANTS(NAME) registers the file sync_NAME.cu, which defines
// add_NAME_variants(std::vector<Variant>&, const SyncMachine&): its variants, each naming its
// level (sync_host.cu adds the clock level's too). Adding a source is its file and its line here.
PK_SYNC_VARIANTS(host)
PK_SYNC_VARIANTS(intra_sm)
PK_SYNC_VARIANTS(inter_sm)
PK_SYNC_VARIANTS(cross_gpu)
