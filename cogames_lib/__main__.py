from cogames_lib.cli import main

raise SystemExit(main())
