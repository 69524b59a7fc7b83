from rfbench.cli import main

main()
