#!/usr/bin/env bash
# Retakes every screenshot in docs/screenshots: the browser tests that check
# what each figure shows save it while they run (internal/browsertest's
# FiguresEnv). Needs what scripts/test.sh installs (Chromium, redis-server,
# the Datastar bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
WINDOWLAB_SCREENSHOTS="$PWD/docs/screenshots" CI=true go test -count=1 ./web/ ./web/play/ ./web/room/ ./web/lessons/ \
	-run 'TestBrowserHomePictureAboveTheFold$|TestBrowserPlayCarParkWithTheMouse$|TestBrowserPlayPresentationFits$|TestBrowserPlayRedisLaneBesideItsGoLane$|TestBrowserPlayOnAPhone$|TestBrowserRoomWorkshop$|TestBrowserPredictThenSee$|TestBrowserLessonUsesItsWidth$|TestBrowserExerciseAnswerLayout$|TestBrowserSectionPictureAnswersTheReader$'
