package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/graphtest"
	"loregate/graph/model"
	"loregate/lore"
)

const guild = "424242424242424242"

// TestClient: the client's calls against the real resolvers and store:
// data decodes into the model types, a payload's typed error and a
// GraphQL error are both *client.Error (told apart by Payload), tokens are
// checked as the HTTP middleware checks them, and artifacts follow the
// download route's rule.
func TestClient(t *testing.T) {
	a := graphtest.NewInProcess(t, graphtest.Options{})
	authn := a.Auth
	c, err := client.New(a.Executor, authn)
	require.NoError(t, err)
	ctx := context.Background()
	service := &auth.Principal{Kind: auth.Service, UserID: "service#test"}

	require.NoError(t, c.Mutate(ctx, service, client.OpUpsertServer, map[string]any{"discordId": guild, "name": "Glade"}, nil))

	var created model.CollectionPayload
	in := map[string]any{"serverDiscordId": guild, "name": "Places"}
	require.NoError(t, c.Mutate(ctx, service, client.OpCreateCollection, in, &created))
	require.NotNil(t, created.Collection)
	require.Equal(t, "Places", created.Collection.Name)

	tests := []struct {
		name    string
		p       *auth.Principal
		op      client.Op
		in      map[string]any
		code    string
		payload bool
		is      error
	}{
		{name: "payload error", p: service, op: client.OpCreateCollection, in: in, code: string(model.ErrorCodeDuplicateName), payload: true},
		{name: "payload error with a field", p: service, op: client.OpCreateCollection, in: map[string]any{"serverDiscordId": guild, "name": ""},
			code: string(model.ErrorCodeInvalidInput), payload: true},
		{name: "forbidden", p: member(false), op: client.OpCreateCollection, in: map[string]any{"serverDiscordId": guild, "name": "Mine"},
			code: graph.CodeForbidden, is: client.ErrForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Mutate(ctx, tc.p, tc.op, tc.in, nil)
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.code, ce.Code)
			require.Equal(t, tc.payload, ce.Payload)
			require.Equal(t, tc.op, ce.Op)
			require.NotEmpty(t, ce.Message)
			if tc.payload {
				require.NotEmpty(t, ce.Reason, "a payload error carries its reason key")
			}
			if tc.code == string(model.ErrorCodeInvalidInput) {
				require.NotEmpty(t, ce.Field)
				require.NotEmpty(t, ce.Fields)
				require.Equal(t, ce.Field, ce.Fields[0].Field)
				require.Equal(t, ce.Reason, ce.Fields[0].Reason)
			}
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			require.Equal(t, tc.payload, client.Is(err, model.ErrorCode(tc.code)))
		})
	}

	t.Run("data into model types", func(t *testing.T) {
		var data client.ServerData
		require.NoError(t, c.Do(ctx, member(false), client.OpServer, map[string]any{"s": guild}, &data))
		require.NotNil(t, data.Server)
		require.Equal(t, "Glade", data.Server.Name)
		require.False(t, data.Server.CanManage)
		require.Equal(t, 1, data.Server.Collections.TotalCount)
		require.Equal(t, "Places", data.Server.Collections.Edges[0].Node.Name)
		require.False(t, data.Server.Collections.Edges[0].Node.UpdatedAt.IsZero())
	})
	t.Run("another server is not visible", func(t *testing.T) {
		var data client.ServerData
		other := &auth.Principal{Kind: auth.Member, UserID: "7", Guilds: map[string]auth.Membership{"1": {Manage: true}}}
		require.NoError(t, c.Do(ctx, other, client.OpServer, map[string]any{"s": guild}, &data))
		require.Nil(t, data.Server)
	})
	t.Run("upload", func(t *testing.T) {
		var out model.ImportPayload
		book := `{"entries": {"0": {"uid": 0, "key": ["oak"], "content": "The oak is old.", "comment": "Oak"}}}`
		err := c.Upload(ctx, service, client.OpImportLorebook, map[string]any{"serverDiscordId": guild, "lineageId": 0, "name": "Trees"},
			client.File{Name: "trees.json", Data: []byte(book)}, &out)
		require.NoError(t, err)
		require.Equal(t, 1, out.Added)
		require.Equal(t, "Trees", out.Collection.Name)
	})
	t.Run("unknown operation", func(t *testing.T) {
		require.ErrorContains(t, c.Do(ctx, service, client.Op("Nope"), nil, nil), `no operation "Nope"`)
	})
	t.Run("principal", func(t *testing.T) {
		token, err := authn.Mint("5", map[string]auth.Membership{guild: {Manage: true}}, time.Hour, time.Now())
		require.NoError(t, err)
		p, err := c.Principal(token)
		require.NoError(t, err)
		require.True(t, p.CanManage(guild))
		p, err = c.Principal(graphtest.ServiceKey)
		require.NoError(t, err)
		require.Equal(t, auth.Service, p.Kind)
		expired, err := authn.Mint("5", nil, time.Minute, time.Now().Add(-time.Hour))
		require.NoError(t, err)
		for _, bad := range []string{"", "not-a-token", expired} {
			_, err := c.Principal(bad)
			require.ErrorIs(t, err, client.ErrUnauthenticated)
		}
	})
	t.Run("artifact", func(t *testing.T) {
		for _, id := range []string{"x", "0", "99"} {
			_, err := c.Artifact(ctx, service, id)
			require.ErrorIs(t, err, lore.ErrNotFound, id)
		}
	})
}

func member(manage bool) *auth.Principal {
	return &auth.Principal{Kind: auth.Member, UserID: "5", Guilds: map[string]auth.Membership{guild: {Manage: manage}}}
}

// ExampleClient_Do runs the Server operation as a member of another
// server: the server is not visible, so it decodes as nil (no store is
// read for it).
func ExampleClient_Do() {
	x := graph.NewExecutor(graph.Config{Resolver: &graph.Resolver{}})
	c, err := client.New(x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := &auth.Principal{Kind: auth.Member, UserID: "5", Guilds: map[string]auth.Membership{"1": {}}}
	var data client.ServerData
	err = c.Do(context.Background(), p, client.OpServer, map[string]any{"s": "2"}, &data)
	fmt.Println(err, data.Server == nil)

	err = c.Mutate(context.Background(), p, client.OpCreateCollection, map[string]any{"serverDiscordId": "2", "name": "Places"}, nil)
	fmt.Println(errors.Is(err, client.ErrForbidden))
	// Output:
	// <nil> true
	// true
}
