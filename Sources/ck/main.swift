import CKCommandLine

CKCommandLineTool.runAndExit(Array(CommandLine.arguments.dropFirst()), program: CommandLine.arguments.first ?? "ck")
