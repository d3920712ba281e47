package docker

import "testing"

// TestMissingWhy: each missing image is named with the command that builds
// it here: a release's stock image with its KAFKA_VERSIONS, our other images
// with make images (one command for several), an image not ours with where
// to read what it must do.
func TestMissingWhy(t *testing.T) {
	for _, tc := range []struct {
		missing []string
		want    string
	}{
		{[]string{"sharechaos/kafka:4.3.2"}, `image sharechaos/kafka:4.3.2 missing: build it with make images KAFKA_VERSIONS="4.3.2"`},
		{[]string{DefaultKafkaImage, DefaultToxiproxyImage}, "image " + DefaultKafkaImage + " and " + DefaultToxiproxyImage + " missing: build it with make images"},
		{[]string{"no-such:1"}, "image no-such:1 missing (not one of ours: build or load it, docker/README.md says what an image must do)"},
		{[]string{"sharechaos/kafka:latest"}, "image sharechaos/kafka:latest missing (not one of ours: build or load it, docker/README.md says what an image must do)"},
	} {
		if got := MissingWhy(tc.missing); got != tc.want {
			t.Errorf("MissingWhy(%v) = %q, want %q", tc.missing, got, tc.want)
		}
	}
}
