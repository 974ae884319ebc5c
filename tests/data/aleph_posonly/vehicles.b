% Positive-only learning, in the shape of the posonly/animals example that ships with
% Aleph (same settings, mode shapes and sizes), with data of its own: written for ilpkit's
% tests (tests/test_aleph_posonly.py), not taken from Aleph, whose examples carry no
% licence that allows copying them.
%
% kind/2 gives the kind (road, pedal, boat, aircraft) of a vehicle. Only positive examples
% are given (vehicles.f); Aleph's set(evalfn,posonly) scores a clause against random
% examples of kind/2 drawn from the types vehicle/1 and kind/1.
%       a. Load Aleph
%       b. read_all(vehicles).
%       c. induce.

:- set(evalfn,posonly).
:- set(clauselength,2).
:- set(gsamplesize,20).

%%%%%%%%%%%%%%%%%%%%%%%%%%%%
% Mode declarations

:- modeh(1,kind(+vehicle,#kind)).
:- modeb(1,has_wheels(+vehicle,#count)).
:- modeb(1,has_pedals(+vehicle)).
:- modeb(1,has_sails(+vehicle)).
:- modeb(1,has_wings(+vehicle)).
:- modeb(1,has_engine(+vehicle)).
:- modeb(1,no_engine(+vehicle)).
:- modeb(*,travels(+vehicle,#medium)).

:- determination(kind/2,has_wheels/2).
:- determination(kind/2,has_pedals/1).
:- determination(kind/2,has_sails/1).
:- determination(kind/2,has_wings/1).
:- determination(kind/2,has_engine/1).
:- determination(kind/2,no_engine/1).
:- determination(kind/2,travels/2).

%%%%%%%%%%%%%%%%%%%%%%%%%%%%
% Types

vehicle(car).  vehicle(van).  vehicle(taxi).  vehicle(lorry).  vehicle(bus).
vehicle(bicycle).  vehicle(tricycle).  vehicle(unicycle).  vehicle(yacht).
vehicle(canoe).  vehicle(ferry).  vehicle(dinghy).  vehicle(jet).  vehicle(glider).
vehicle(airliner).  vehicle(helicopter).  vehicle(tram).  vehicle(hovercraft).
vehicle(balloon).  vehicle(sledge).

kind(road).  kind(pedal).  kind(boat).  kind(aircraft).

medium(land).  medium(water).  medium(air).  medium(ice).

count(0).  count(1).  count(2).  count(3).  count(4).  count(6).

%%%%%%%%%%%%%%%%%%%%%%%%%%%%
% Background knowledge

has_wheels(car,4).
has_wheels(van,4).
has_wheels(taxi,4).
has_wheels(lorry,6).
has_wheels(bus,6).
has_wheels(bicycle,2).
has_wheels(tricycle,3).
has_wheels(unicycle,1).
has_wheels(yacht,0).
has_wheels(canoe,0).
has_wheels(ferry,0).
has_wheels(dinghy,0).
has_wheels(jet,3).
has_wheels(glider,1).
has_wheels(airliner,6).
has_wheels(helicopter,0).
has_wheels(tram,4).
has_wheels(hovercraft,0).
has_wheels(balloon,0).
has_wheels(sledge,0).

has_pedals(bicycle).
has_pedals(tricycle).
has_pedals(unicycle).

has_sails(yacht).
has_sails(dinghy).

has_wings(jet).
has_wings(glider).
has_wings(airliner).

has_engine(car).
has_engine(van).
has_engine(taxi).
has_engine(lorry).
has_engine(bus).
has_engine(ferry).
has_engine(jet).
has_engine(airliner).
has_engine(helicopter).
has_engine(tram).
has_engine(hovercraft).

no_engine(X) :- vehicle(X), \+ has_engine(X).

travels(car,land).
travels(van,land).
travels(taxi,land).
travels(lorry,land).
travels(bus,land).
travels(bicycle,land).
travels(tricycle,land).
travels(unicycle,land).
travels(yacht,water).
travels(canoe,water).
travels(ferry,water).
travels(dinghy,water).
travels(jet,air).
travels(glider,air).
travels(airliner,air).
travels(helicopter,air).
travels(tram,land).
travels(hovercraft,water).
travels(hovercraft,land).
travels(balloon,air).
travels(sledge,ice).
