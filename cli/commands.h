// The subcommands. Each Run* takes argv with argv[0] = "tk CMD" and returns an exit code.
#ifndef TK_CLI_COMMANDS_H_
#define TK_CLI_COMMANDS_H_

namespace tk::cli {

int RunFold(int argc, char** argv);
int RunSched(int argc, char** argv);
int RunIolat(int argc, char** argv);
int RunScript(int argc, char** argv);
int RunInfo(int argc, char** argv);
int RunCputop(int argc, char** argv);
int RunIrq(int argc, char** argv);
int RunSyscalls(int argc, char** argv);
int RunMemtop(int argc, char** argv);
int RunReport(int argc, char** argv);
int RunPprof(int argc, char** argv);
int RunMerge(int argc, char** argv);
int RunSql(int argc, char** argv);
int RunFlamegraph(int argc, char** argv);
int RunDiff(int argc, char** argv);

}  // namespace tk::cli

#endif  // TK_CLI_COMMANDS_H_
