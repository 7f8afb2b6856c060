LatchkeyCommand.start()
