package shareconsumer

import "github.com/google/uuid"

// newMemberID generates the member id: since Kafka 4.1 (KIP-932's final
// protocol) the share consumer, not the coordinator, picks it, and keeps it
// for its whole life, rejoins included.
func newMemberID() string { return uuid.NewString() }
