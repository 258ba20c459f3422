package main

func fileFigure(o options)                     {}
func smallFigure(o options)                    {}
func linkFigure(o options)                     {}
func pipeSendChild(args []string) childReport  { return fail("todo") }
func pipeRecvChild(args []string) childReport  { return fail("todo") }
func fileSendChild(args []string) childReport  { return fail("todo") }
func fileRecvChild(args []string) childReport  { return fail("todo") }
func plainSendChild(args []string) childReport { return fail("todo") }
func plainRecvChild(args []string) childReport { return fail("todo") }
