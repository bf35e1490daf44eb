import NIOCore
import NIOHTTP2
import NIOPosix

/// What one event loop of the probe keeps: its upstream connection (one, opened on first use), the
/// calls relayed over it, and the connections written to since they were last flushed. Used only on
/// its event loop.
final class LoopRelay {
  /// A relayed call: the client stream that an upstream stream stands for.
  struct Route {
    let client: FramePeer
    let clientStreamID: HTTP2StreamID
    var requestEnded = false
    var responseEnded = false
  }

  let eventLoop: any EventLoop
  private let upstreamHost: String
  private let upstreamPort: Int
  private var upstream: FramePeer?
  /// The upstream's open streams, each with the client stream it relays.
  private var routes: [HTTP2StreamID: Route] = [:]
  private var unflushed: [FramePeer] = []

  init(eventLoop: any EventLoop, upstreamHost: String, upstreamPort: Int) {
    self.eventLoop = eventLoop
    self.upstreamHost = upstreamHost
    self.upstreamPort = upstreamPort
  }

  /// A frame read from a client's connection. Frames of the connection itself (SETTINGS, PING,
  /// WINDOW_UPDATE, GOAWAY) are NIOHTTP2Handler's business and go no further.
  func fromClient(_ frame: HTTP2Frame, on client: FramePeer) {
    if case .rstStream(let code) = frame.payload { return reset(frame.streamID, on: client, code: code) }
    var upstreamID = client.upstreamIDs[frame.streamID]
    if upstreamID == nil, case .headers = frame.payload {
      upstreamID = openStream(frame.streamID, of: client, on: connectedUpstream())
    }
    guard let upstreamID, let upstream = self.upstream else { return }
    if forward(frame, to: upstream, as: upstreamID, from: client) { ended(upstreamID, request: true) }
  }

  /// A frame read from the upstream connection.
  func fromUpstream(_ frame: HTTP2Frame, on upstream: FramePeer) {
    guard upstream === self.upstream, let route = routes[frame.streamID] else { return }
    if case .rstStream(let code) = frame.payload { return reset(frame.streamID, on: upstream, code: code) }
    if forward(frame, to: route.client, as: route.clientStreamID, from: upstream) {
      ended(frame.streamID, request: false)
    }
  }

  /// Writes a HEADERS or DATA `frame` from `sender` on `streamID` of `peer` (priority and padding
  /// dropped; NIOHTTP2Handler validates the headers); DATA is credited back to `sender` at once.
  /// Whether the frame ended its stream.
  private func forward(
    _ frame: HTTP2Frame, to peer: FramePeer, as streamID: HTTP2StreamID, from sender: FramePeer
  ) -> Bool {
    switch frame.payload {
    case .headers(let headers):
      let payload = HTTP2Frame.FramePayload.Headers(headers: headers.headers, endStream: headers.endStream)
      peer.send(HTTP2Frame(streamID: streamID, payload: .headers(payload)))
      return headers.endStream
    case .data(let data):
      let payload = HTTP2Frame.FramePayload.Data(data: data.data, endStream: data.endStream)
      peer.send(HTTP2Frame(streamID: streamID, payload: .data(payload)))
      sender.credit(frame.streamID, data)
      return data.endStream
    default:
      return false
    }
  }

  /// `streamID` of `peer`'s connection was reset, by its peer or by NIOHTTP2Handler on a stream error:
  /// the call's other stream is reset with `code`, and the call forgotten. Nothing if already forgotten.
  func reset(_ streamID: HTTP2StreamID, on peer: FramePeer, code: HTTP2ErrorCode) {
    if peer === upstream {
      guard let route = routes.removeValue(forKey: streamID) else { return }
      route.client.upstreamIDs[route.clientStreamID] = nil
      route.client.send(HTTP2Frame(streamID: route.clientStreamID, payload: .rstStream(code)))
    } else {
      guard let upstreamID = peer.upstreamIDs.removeValue(forKey: streamID) else { return }
      routes[upstreamID] = nil
      upstream?.send(HTTP2Frame(streamID: upstreamID, payload: .rstStream(code)))
    }
  }

  /// `peer`'s connection is gone, or never came up: every call through it is reset on its other side.
  /// The maps are emptied before anything is sent, since a reset sent comes back as a `StreamClosedEvent`.
  func lost(_ peer: FramePeer) {
    if peer === upstream {
      upstream = nil
      let calls = routes
      routes = [:]
      for route in calls.values {
        route.client.upstreamIDs[route.clientStreamID] = nil
        route.client.send(HTTP2Frame(streamID: route.clientStreamID, payload: .rstStream(.internalError)))
      }
    } else {
      let calls = peer.upstreamIDs
      peer.upstreamIDs = [:]
      for upstreamID in calls.values {
        routes[upstreamID] = nil
        upstream?.send(HTTP2Frame(streamID: upstreamID, payload: .rstStream(.cancel)))
      }
    }
    flushAll()
  }

  /// `peer` has been written to; it is flushed at the end of the current read.
  func needsFlush(_ peer: FramePeer) {
    unflushed.append(peer)
  }

  /// Flushes every connection written to since its last flush.
  func flushAll() {
    // A flush may close a connection, whose calls are then reset elsewhere: loop until none is left.
    while !unflushed.isEmpty {
      let peers = unflushed
      unflushed.removeAll(keepingCapacity: true)
      for peer in peers { peer.flush() }
    }
  }

  /// Opens the next upstream stream for `clientStreamID` of `client`.
  private func openStream(
    _ clientStreamID: HTTP2StreamID, of client: FramePeer, on upstream: FramePeer
  ) -> HTTP2StreamID {
    let upstreamID = upstream.nextStreamID
    upstream.nextStreamID = upstreamID.advanced(by: 2)
    client.upstreamIDs[clientStreamID] = upstreamID
    routes[upstreamID] = Route(client: client, clientStreamID: clientStreamID)
    return upstreamID
  }

  /// One way of the call on `upstreamID` has ended; the call is forgotten once both have.
  private func ended(_ upstreamID: HTTP2StreamID, request: Bool) {
    guard var route = routes[upstreamID] else { return }
    if request { route.requestEnded = true } else { route.responseEnded = true }
    if route.requestEnded && route.responseEnded {
      routes[upstreamID] = nil
      route.client.upstreamIDs[route.clientStreamID] = nil
    } else {
      routes[upstreamID] = route
    }
  }

  /// The upstream connection, connecting it if there is none; what is sent on it waits until it is up.
  private func connectedUpstream() -> FramePeer {
    if let upstream = self.upstream { return upstream }
    let peer = FramePeer(side: .upstream, relay: self)
    upstream = peer
    let loopBound = NIOLoopBound(peer, eventLoop: eventLoop)
    ClientBootstrap(group: eventLoop)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(2))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          let http2 = NIOHTTP2Handler(mode: .client, initialSettings: FramePeer.settings)
          try channel.pipeline.syncOperations.addHandler(http2)
          try channel.pipeline.syncOperations.addHandler(loopBound.value)
        }
      }
      .connect(host: upstreamHost, port: upstreamPort)
      .whenFailure { _ in loopBound.value.lost() }
    return peer
  }
}
