import FileDownloadCLI

await FDL.runAsMain()
