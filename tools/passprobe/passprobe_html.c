#include "passprobe_cli.h"
int cli_html_write(const struct cli_report *r, const char *html_path) { (void)r; (void)html_path; return -1; }
void cli_html_after_run(const char *dir, long long start_sec) { (void)dir; (void)start_sec; }
