import CKCommandLine

CKCommandLineTool.runAndExit(Array(CommandLine.arguments.dropFirst()))
